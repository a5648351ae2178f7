package io.rediacc.gpu.inventory.signing;

import io.rediacc.gpu.contracts.api.RegisteredMachineKey;
import io.rediacc.gpu.contracts.signing.RemovalFence;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.security.PublicKey;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The machines' registered public keys in this service's database ({@code machine_keys}): registered by
 * an operator (the same rules as grant-service's: a different key only with {@code rekey}, kept in the
 * history), revoked by the machine's removal ({@link #REVOKE}, in the ingest transaction that removes it),
 * looked up by the consumers with each machine's removal fence.
 *
 * <p>A machine's key is read from the database at every lookup (one query per poll), never from a cache of
 * machine to key: a removal revokes the key on the replica that reads the removal, and a cache on another
 * replica would let the revoked key verify for its lifetime (issue 31). Only the parsing of a key's PEM text
 * is cached, by that text.
 */
@ApplicationScoped
public class MachineKeys {

    private static final Logger LOG = Logger.getLogger(MachineKeys.class);
    /** Parsed keys kept by PEM text; cleared when full (keys of forgers' records are never looked up: only registered ones). */
    private static final int PARSED_MAX = 100_000;

    /** A registration refused because the machine holds another key. */
    public static final class KeyHeld extends io.rediacc.gpu.api.problem.ApiProblem {
        public KeyHeld(String message) {
            super(io.rediacc.gpu.api.problem.ProblemType.MACHINE_KEY_REGISTERED, message,
                    "if the machine was reinstalled or its key replaced on purpose, re-key it: rdc machine setup <machine> --rekey"
                            + " (PUT ...?rekey=true); else the key offered is not the machine's");
        }
    }

    private static final String LOCK = "select pg_advisory_xact_lock(hashtextextended('machine-key:' || $1, 0))";
    private static final String FIND = "select machine, public_key, key_id, registered_by, registered_at from machine_keys where machine = $1";
    private static final String FIND_ALL = """
            select k.machine, k.public_key, k.registered_at, r.removed_at from machine_keys k
            left join machine_removals r on r.machine = k.machine where k.machine = any($1)""";
    /**
     * Revokes the keys of the machines removed (one row per machine: the removal's signed time), keeps each
     * revocation in the key history and records the removal: its time is the machine's fence until a later
     * registration. A key registered after the removal was signed stays (the machine rejoined first).
     */
    private static final String REVOKE = """
            with t as (select * from unnest($1::text[], $2::timestamptz[]) as t(machine, at)),
                 gone as (delete from machine_keys k using t where k.machine = t.machine and k.registered_at <= t.at
                          returning k.machine, k.key_id, t.at),
                 kept as (insert into machine_key_history (machine, key_id, previous_key_id, actor, at, reason, kind)
                          select machine, key_id, key_id, 'grant-service', at, 'the machine was removed from the fleet',
                                 'revoked' from gone)
            insert into machine_removals (machine, removed_at) select machine, at from t
            on conflict (machine) do update set removed_at = greatest(machine_removals.removed_at, excluded.removed_at)""";
    private static final String UPSERT = """
            insert into machine_keys (machine, public_key, key_id, registered_by, registered_at) values ($1, $2, $3, $4, $5)
            on conflict (machine) do update set public_key = excluded.public_key, key_id = excluded.key_id,
                registered_by = excluded.registered_by, registered_at = excluded.registered_at""";
    private static final String HISTORY = """
            insert into machine_key_history (machine, key_id, previous_key_id, actor, at, reason, kind)
            values ($1, $2, $3, $4, $5, $6, $7)""";

    private final Pool pool;
    private final Map<String, PublicKey> parsed = new ConcurrentHashMap<>();

    public MachineKeys(Pool pool) {
        this.pool = pool;
    }

    /** The registered keys of these machines with their removal fences (absent: none registered, or revoked). */
    public Uni<Map<String, SignerKeys.MachineKey>> lookup(Collection<String> machines) {
        return pool.preparedQuery(FIND_ALL).execute(Tuple.of(machines.toArray(new String[0]))).map(rows -> {
            Map<String, SignerKeys.MachineKey> found = new HashMap<>();
            for (Row row : rows) {
                Instant registeredAt = row.getOffsetDateTime("registered_at").toInstant();
                OffsetDateTime removedAt = row.getOffsetDateTime("removed_at");
                found.put(row.getString("machine"), new SignerKeys.MachineKey(parse(row.getString("public_key")), registeredAt,
                        RemovalFence.fence(registeredAt, removedAt == null ? null : removedAt.toInstant())));
            }
            return found;
        });
    }

    /**
     * In the caller's transaction (the one that removes the machines): revokes the keys of the machines removed,
     * each at its removal's signed time ({@link #REVOKE}). The next lookup, on any replica, finds no key.
     */
    public static Uni<Void> revoke(io.vertx.mutiny.sqlclient.SqlConnection c, Map<String, Instant> removedAt) {
        if (removedAt.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        String[] machines = removedAt.keySet().toArray(String[]::new);
        OffsetDateTime[] at = new OffsetDateTime[machines.length];
        for (int i = 0; i < machines.length; i++) {
            at[i] = OffsetDateTime.ofInstant(removedAt.get(machines[i]), ZoneOffset.UTC);
        }
        return c.preparedQuery(REVOKE).execute(Tuple.of(machines, at)).invoke(rows ->
                LOG.warnf("machine(s) %s removed from the fleet: their keys are revoked until they register again",
                        String.join(", ", machines))).replaceWithVoid();
    }

    private PublicKey parse(String pem) {
        PublicKey key = parsed.get(pem);
        if (key == null) {
            if (parsed.size() >= PARSED_MAX) {
                parsed.clear();
            }
            key = SigningKeys.parsePublic(pem);
            parsed.put(pem, key);
        }
        return key;
    }

    public Uni<RegisteredMachineKey> show(String machine) {
        return pool.preparedQuery(FIND).execute(Tuple.of(machine))
                .map(rows -> rows.iterator().hasNext() ? view(rows.iterator().next(), null, false) : null);
    }

    /** Registers the key (parsed already); {@link KeyHeld} when another is registered and {@code rekey} is false. */
    public Uni<RegisteredMachineKey> register(String machine, PublicKey key, boolean rekey, String actor, String reason) {
        String pem = SigningKeys.publicPem(key);
        String keyId = SigningKeys.keyId(key);
        OffsetDateTime at = OffsetDateTime.ofInstant(Instant.now(), ZoneOffset.UTC);
        return pool.withTransaction(c -> c.preparedQuery(LOCK).execute(Tuple.of(machine))
                .chain(() -> c.preparedQuery(FIND).execute(Tuple.of(machine)))
                .chain(rows -> {
                    Row current = rows.iterator().hasNext() ? rows.iterator().next() : null;
                    if (current != null && current.getString("key_id").equals(keyId)) {
                        return Uni.createFrom().item(view(current, null, false));
                    }
                    if (current != null && !rekey) {
                        throw new KeyHeld("machine " + machine + " already has key " + current.getString("key_id")
                                + " (registered by " + current.getString("registered_by") + "), not " + keyId);
                    }
                    String previous = current == null ? null : current.getString("key_id");
                    return c.preparedQuery(UPSERT).execute(Tuple.of(machine, pem, keyId, actor, at))
                            .chain(() -> c.preparedQuery(HISTORY).execute(Tuple.from(Arrays.asList(machine, keyId, previous,
                                    actor, at, reason, previous == null ? "registered" : "rekeyed"))))
                            .map(x -> {
                                if (previous != null) {
                                    LOG.warnf("machine %s RE-KEYED by %s: key %s replaces %s", machine, actor, keyId, previous);
                                }
                                return new RegisteredMachineKey(machine, keyId, pem, actor, at.toInstant(), previous, true);
                            });
                }));
    }

    private static RegisteredMachineKey view(Row row, String previous, boolean changed) {
        return new RegisteredMachineKey(row.getString("machine"), row.getString("key_id"), row.getString("public_key"),
                row.getString("registered_by"), row.getOffsetDateTime("registered_at").toInstant(), previous, changed);
    }
}
