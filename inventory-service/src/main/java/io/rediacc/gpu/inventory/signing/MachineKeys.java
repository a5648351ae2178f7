package io.rediacc.gpu.inventory.signing;

import io.rediacc.gpu.contracts.api.RegisteredMachineKey;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The machines' registered public keys in this service's database ({@code machine_keys}): registered by
 * an operator (the same rules as grant-service's: a different key only with {@code rekey}, kept in the
 * history), looked up by the consumers. Lookups are cached for {@link #CACHE_FOR}; misses are not.
 */
@ApplicationScoped
public class MachineKeys {

    private static final Logger LOG = Logger.getLogger(MachineKeys.class);
    static final Duration CACHE_FOR = Duration.ofSeconds(30);

    /** A registration refused because the machine holds another key. */
    public static final class KeyHeld extends io.rediacc.gpu.api.problem.ApiProblem {
        public KeyHeld(String message) {
            super(io.rediacc.gpu.api.problem.ProblemType.MACHINE_KEY_REGISTERED, message,
                    "if the machine was reinstalled or its key replaced on purpose, re-key it: rdc machine setup <machine> --rekey"
                            + " (PUT ...?rekey=true); else the key offered is not the machine's");
        }
    }

    private record Cached(PublicKey key, long until) {
    }

    private static final String LOCK = "select pg_advisory_xact_lock(hashtextextended('machine-key:' || $1, 0))";
    private static final String FIND = "select machine, public_key, key_id, registered_by, registered_at from machine_keys where machine = $1";
    private static final String FIND_ALL = "select machine, public_key, key_id, registered_by, registered_at from machine_keys where machine = any($1)";
    private static final String UPSERT = """
            insert into machine_keys (machine, public_key, key_id, registered_by, registered_at) values ($1, $2, $3, $4, $5)
            on conflict (machine) do update set public_key = excluded.public_key, key_id = excluded.key_id,
                registered_by = excluded.registered_by, registered_at = excluded.registered_at""";
    private static final String HISTORY = """
            insert into machine_key_history (machine, key_id, previous_key_id, actor, at, reason) values ($1, $2, $3, $4, $5, $6)""";

    private final Pool pool;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    public MachineKeys(Pool pool) {
        this.pool = pool;
    }

    /** The registered keys of these machines (absent: none registered). */
    public Uni<Map<String, PublicKey>> lookup(Collection<String> machines) {
        Map<String, PublicKey> found = new HashMap<>();
        java.util.List<String> missing = new ArrayList<>();
        long now = System.nanoTime();
        for (String m : machines) {
            Cached c = cache.get(m);
            if (c != null && c.until() > now) {
                found.put(m, c.key());
            } else {
                missing.add(m);
            }
        }
        if (missing.isEmpty()) {
            return Uni.createFrom().item(found);
        }
        return pool.preparedQuery(FIND_ALL).execute(Tuple.of(missing.toArray(new String[0]))).map(rows -> {
            for (Row row : rows) {
                PublicKey key = SigningKeys.parsePublic(row.getString("public_key"));
                cache.put(row.getString("machine"), new Cached(key, System.nanoTime() + CACHE_FOR.toNanos()));
                found.put(row.getString("machine"), key);
            }
            return found;
        });
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
                                    actor, at, reason))))
                            .map(x -> {
                                cache.remove(machine);
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
