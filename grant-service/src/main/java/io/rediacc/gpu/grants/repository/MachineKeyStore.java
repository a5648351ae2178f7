package io.rediacc.gpu.grants.repository;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/** The {@code machine_keys} table and its history: each machine's registered public key. */
@ApplicationScoped
public class MachineKeyStore {

    /**
     * One machine's registered key.
     *
     * @param lastRemovedAt when the machine was last removed from the fleet (issue 31); null if never
     */
    public record StoredKey(String machine, String publicKeyPem, String keyId, String registeredBy, Instant registeredAt,
                            Instant lastRemovedAt) {

        /**
         * The time a record of the machine must be signed after to count: the later of its last removal and
         * this registration, once it has been removed; null for a machine never removed (nothing to fence).
         */
        public Instant fence() {
            return io.rediacc.gpu.contracts.signing.RemovalFence.fence(registeredAt, lastRemovedAt);
        }
    }

    /** What a registration did: {@code previousKeyId} is null for a first registration; {@code changed} false when the same key was registered again. */
    public record Outcome(StoredKey key, String previousKeyId, boolean changed) {
    }

    /** Why a registration was not written: the machine holds another key and re-keying was not asked for. */
    public record Held(StoredKey current) {
    }

    private static final String LOCK = "select pg_advisory_xact_lock(hashtextextended('machine-key:' || $1, 0))";
    private static final String FIND = """
            select k.machine, k.public_key, k.key_id, k.registered_by, k.registered_at, r.removed_at
            from machine_keys k left join machine_removals r on r.machine = k.machine where k.machine = $1""";
    private static final String UPSERT = """
            insert into machine_keys (machine, public_key, key_id, registered_by, registered_at) values ($1, $2, $3, $4, $5)
            on conflict (machine) do update set public_key = excluded.public_key, key_id = excluded.key_id,
                registered_by = excluded.registered_by, registered_at = excluded.registered_at""";
    /** The key history row and the audit trail's entry (GET /api/v1/audit) of one registration or re-keying. */
    private static final String HISTORY = """
            with kept as (insert into machine_key_history (machine, key_id, previous_key_id, actor, at, reason, kind)
                          values ($1, $2, $3, $4, $5, $6, $7))
            insert into grant_history (event_id, at, event, machine, repo_name, device, exclusive, actor, reason,
                                       request_reason)
            values ($8, $5, 'key-' || $7, $1, '', '', false, $4,
                    'key ' || $2 || case when $3::text is null then ' registered' else ' replaces key ' || $3 end, $6)""";

    private final Pool pool;

    public MachineKeyStore(Pool pool) {
        this.pool = pool;
    }

    public Uni<Optional<StoredKey>> find(String machine) {
        return pool.preparedQuery(FIND).execute(Tuple.of(machine))
                .map(rows -> rows.iterator().hasNext() ? Optional.of(stored(rows.iterator().next())) : Optional.empty());
    }

    /**
     * Registers {@code pem} for the machine under a lock of its own: a first key is written, the same key
     * again changes nothing, another key replaces the registered one only when {@code rekey}; each write is
     * kept in {@code machine_key_history}. The item is an {@link Outcome}, or {@link Held} when refused.
     */
    public Uni<Object> register(String machine, String pem, String keyId, boolean rekey, String actor, String reason) {
        Instant now = Instant.now();
        OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
        return pool.withTransaction(c -> c.preparedQuery(LOCK).execute(Tuple.of(machine))
                .chain(() -> c.preparedQuery(FIND).execute(Tuple.of(machine)))
                .chain(rows -> {
                    StoredKey current = rows.iterator().hasNext() ? stored(rows.iterator().next()) : null;
                    if (current != null && current.keyId().equals(keyId)) {
                        return Uni.createFrom().item((Object) new Outcome(current, current.keyId(), false));
                    }
                    if (current != null && !rekey) {
                        return Uni.createFrom().item((Object) new Held(current));
                    }
                    String previous = current == null ? null : current.keyId();
                    return c.preparedQuery(UPSERT).execute(Tuple.of(machine, pem, keyId, actor, at))
                            .chain(() -> c.preparedQuery(HISTORY).execute(Tuple.from(java.util.Arrays.asList(
                                    machine, keyId, previous, actor, at, reason, previous == null ? "registered" : "rekeyed",
                                    java.util.UUID.randomUUID().toString()))))
                            .map(x -> (Object) new Outcome(new StoredKey(machine, pem, keyId, actor, now,
                                    current == null ? null : current.lastRemovedAt()), previous, true));
                }));
    }

    private static StoredKey stored(Row row) {
        return new StoredKey(row.getString("machine"), row.getString("public_key"), row.getString("key_id"),
                row.getString("registered_by"), row.getOffsetDateTime("registered_at").toInstant(),
                row.getOffsetDateTime("removed_at") == null ? null : row.getOffsetDateTime("removed_at").toInstant());
    }
}
