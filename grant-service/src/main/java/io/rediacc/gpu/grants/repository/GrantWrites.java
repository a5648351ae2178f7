package io.rediacc.gpu.grants.repository;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The statements of a grant or revoke, on the reactive client with prepared statements (cached per
 * connection): the machine's lock and everything the rules check in one round trip, then the
 * writes pipelined in a second. The ORM cost about 6 ms of CPU and a dozen round trips per change
 * (docs/BENCHMARKS.md, benchmark 3); reads that are not on the write path stay with Hibernate.
 */
@ApplicationScoped
public class GrantWrites {

    private static final String TRY_LOCK = "select pg_try_advisory_xact_lock(hashtextextended($1, 0))";
    /** Bounded wait: lock_timeout is set (for this transaction) before the lock is asked for (OFFSET 0 keeps the order). */
    private static final String LOCK = """
            select pg_advisory_xact_lock(hashtextextended($2, 0))
            from (select set_config('lock_timeout', $1, true) offset 0) timeout""";
    /**
     * Everything the rules need, as of the statement's start: whether the machine sent an inventory,
     * its version, the repo's GUID, its devices, and its grants in snapshot order together with the
     * row the change would write (candidate), so that the database's collation orders the new set.
     */
    private static final String STATE = """
            with g as (
                select repo_guid, repo_name, device, exclusive, granted_by, granted_at, expires_at, false as candidate
                from grants where machine = $1
                union all
                select guid, name, $3::text, $4::boolean, $5::text, $6::timestamptz, null::timestamptz, true
                from machine_repos where machine = $1 and name = $2)
            select h.known, h.removed_at, h.version, h.repo_guid, h.device_names, h.device_nodes, h.device_cards,
                   g.repo_guid as g_repo_guid, g.repo_name as g_repo_name, g.device as g_device,
                   g.exclusive as g_exclusive, g.granted_by as g_granted_by, g.granted_at as g_granted_at,
                   g.expires_at as g_expires_at, g.candidate as g_candidate
            from (select exists (select 1 from machines where machine = $1) as known,
                         (select r.removed_at from machine_removals r where r.machine = $1
                          and not exists (select 1 from machine_keys k where k.machine = $1)) as removed_at,
                         coalesce((select version from machine_versions where machine = $1), 0) as version,
                         (select guid from machine_repos where machine = $1 and name = $2) as repo_guid,
                         array(select name from machine_devices where machine = $1 order by name) as device_names,
                         array(select device_nodes from machine_devices where machine = $1 order by name) as device_nodes,
                         array(select cards from machine_devices where machine = $1 order by name) as device_cards
                 ) h
            left join g on true
            order by g.device, g.repo_name, g.repo_guid, g.candidate""";
    private static final String REPO_NAMES = "select name from machine_repos where machine = $1 order by name";
    private static final String UPSERT_GRANT = """
            insert into grants (machine, repo_guid, repo_name, device, exclusive, granted_by, granted_at, expires_at)
            values ($1, $2, $3, $4, $5, $6, $7, $8)
            on conflict (machine, repo_guid, device) do update set repo_name = excluded.repo_name,
                exclusive = excluded.exclusive, granted_by = excluded.granted_by, granted_at = excluded.granted_at,
                expires_at = excluded.expires_at""";
    private static final String DELETE_MACHINE_GRANTS = "delete from grants where machine = $1";
    private static final String INSERT_HISTORY = """
            insert into grant_history (event_id, at, event, machine, repo_guid, repo_name, device, exclusive, actor,
                                       version, reason, request_reason, expires_at)
            values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)""";
    /** The machine's rows that come from its inventory and its gates; grants and the version stay (a version never goes back). */
    private static final List<String> FORGET_MACHINE = List.of(
            "delete from machine_devices where machine = $1",
            "delete from machine_repos where machine = $1",
            "delete from gate_status where machine = $1",
            "delete from machines where machine = $1");
    /**
     * Deletes the key, keeps its revocation in the key history and the audit trail, raises the removal generation
     * (PostgreSQL runs every data-modifying CTE to completion, referenced or not).
     */
    private static final String REVOKE_KEY = """
            with gone as (delete from machine_keys where machine = $1 returning key_id),
                 kept as (insert into machine_key_history (machine, key_id, previous_key_id, actor, at, reason, kind)
                          select $1, key_id, key_id, $2, $3, $4, 'revoked' from gone returning key_id),
                 audited as (insert into grant_history (event_id, at, event, machine, repo_name, device, exclusive, actor,
                                                        reason)
                             select $5, $3, 'key-revoked', $1, '', '', false, $2,
                                    'key ' || key_id || ' revoked: ' || $4 from gone)
            insert into machine_removals (machine, generation, removed_at, removed_by)
            values ($1, 1, $3, $2)
            on conflict (machine) do update set generation = machine_removals.generation + 1,
                removed_at = excluded.removed_at, removed_by = excluded.removed_by
            returning generation""";
    private static final String HAS_KEY = "select exists (select 1 from machine_keys where machine = $1)";
    private static final String GATE_IDS = "select gate_id from gate_status where machine = $1 order by gate_id";
    private static final String DELETE_GRANT = "delete from grants where machine = $1 and repo_guid = $2 and device = $3";
    private static final String BUMP_VERSION = """
            insert into machine_versions (machine, version, published_at) values ($1, 1, now())
            on conflict (machine) do update set version = machine_versions.version + 1, published_at = now()
            returning version""";
    /** Machines whose newest snapshot went out before $1 (oldest first): due for re-publication. */
    private static final String REPUBLISH_DUE = """
            select machine from machine_versions where published_at is null or published_at < $1
            order by published_at nulls first limit $2""";
    /** Claims a machine's re-publication under its lock: no row when another replica did it since. */
    private static final String CLAIM_REPUBLISH = """
            update machine_versions set published_at = now()
            where machine = $1 and (published_at is null or published_at < $2)
            returning version""";
    /**
     * Marks the transaction's outbox rows as announced after the commit (OutboxSignal, OutboxWakeups): the
     * outbox trigger (migration V6) does not NOTIFY inside it, which would serialise every change's commit.
     */
    private static final String NOTIFY_AFTER_COMMIT = "select set_config('grants.outbox_notify', 'after-commit', true)";
    private static final String APPEND_OUTBOX = """
            insert into outbox (aggregatetype, aggregateid, type, payload, headers, created_at) values ($1, $2, $3, $4, $5, $6)
            returning id""";

    private final Pool pool;
    private final GrantsConfig config;

    public GrantWrites(Pool pool, GrantsConfig config) {
        this.pool = pool;
        this.config = config;
    }

    /** The row a change would write; a revoke passes one too and ignores it. */
    public record Candidate(String device, boolean exclusive, String actor, Instant at) {
    }

    /** One grant of the machine, or the candidate ({@code candidate}), in snapshot order; {@code expiresAt} null: never. */
    public record GrantRow(Grant grant, boolean candidate, Instant expiresAt) {
    }

    /** One row of the history table (see db/migration). */
    public record HistoryRow(String eventId, Instant at, String event, String machine, String repoGuid, String repoName,
                             String device, boolean exclusive, String actor, Long version, String reason,
                             String requestReason, Instant expiresAt) {
    }

    /**
     * What the rules check, read in one statement.
     *
     * @param locked   whether the machine's lock was held when it was read (else it is a plain read)
     * @param repoGuid null when the machine lists no repo of that name
     * @param devices  the machine's CDI names (by name) with their device nodes
     * @param cards    the machine's CDI names (by name) with the PCI addresses of the cards they reach
     */
    /** @param removedAt when the machine was removed, while it has not registered a key again; else null */
    public record MachineState(boolean locked, boolean known, long version, String repoGuid,
                               Map<String, List<String>> devices, Map<String, List<String>> cards,
                               List<GrantRow> grants, Instant removedAt) {
    }

    /** A record for the outbox, written in the change's transaction. */
    public record OutboxRecord(Topics.TopicSpec topic, String key, String subject, String eventId, Instant time,
                               Object value) {
    }

    /**
     * Runs {@code work} in one transaction on one connection: committed when it succeeds, rolled back
     * when it fails. Unlike {@code Pool.withTransaction}, which waits for BEGIN's answer before the
     * work's first statement, BEGIN goes out together with the first statements (the client pipelines
     * a connection's commands and PostgreSQL runs them in order): one round trip less per change,
     * which on a loaded machine is several milliseconds of the grant → enforced path.
     */
    public <T> Uni<T> inTransaction(Function<SqlConnection, Uni<T>> work) {
        return inTransaction(pool, work);
    }

    /** {@link #inTransaction(Function)} on the given pool (the outbox relay's transactions too). */
    public static <T> Uni<T> inTransaction(Pool pool, Function<SqlConnection, Uni<T>> work) {
        return pool.withConnection(c -> {
            Uni<Transaction> begun = begin(c);
            return Uni.createFrom().deferred(() -> work.apply(c))
                    .onItemOrFailure().transformToUni((result, failure) -> begun.onItemOrFailure()
                            .transformToUni((tx, beginFailed) -> {
                                if (beginFailed != null) {
                                    // BEGIN fails only with its connection, and the statements queued behind it with it: the work fails
                                    return Uni.createFrom().<T>failure(failure != null ? failure : beginFailed);
                                }
                                if (failure != null) {
                                    return tx.rollback().onItemOrFailure()
                                            .transformToUni((ignored, rollbackFailed) -> Uni.createFrom().<T>failure(failure));
                                }
                                return tx.commit().replaceWith(result);
                            }));
        });
    }

    /**
     * Sends BEGIN now, without waiting for its answer: the statements issued on {@code c} after this call
     * run inside the transaction (the client schedules them behind BEGIN). The Uni gives the transaction
     * once PostgreSQL answered BEGIN.
     */
    public static Uni<Transaction> begin(SqlConnection c) {
        return Uni.createFrom().completionStage(c.getDelegate().begin().toCompletionStage())
                .map(Transaction::newInstance)
                .memoize().indefinitely();
    }

    /**
     * Tries the machine's lock and reads the state, pipelined: the read starts after the try, so when
     * the lock was taken the state is as of holding it; when not, it is a plain read of committed rows.
     */
    public Uni<MachineState> tryLockAndRead(SqlConnection c, String machine, String repo, Candidate candidate) {
        return Uni.combine().all().unis(
                        c.preparedQuery(TRY_LOCK).execute(Tuple.of(key(machine))),
                        read(c, machine, repo, candidate))
                .asTuple()
                .map(both -> {
                    boolean locked = both.getItem1().iterator().next().getBoolean(0);
                    return toState(locked, both.getItem2());
                });
    }

    /** Waits for the machine's lock (at most {@code grants.lock-timeout}, then 55P03) and reads the state under it. */
    public Uni<MachineState> lockAndRead(SqlConnection c, String machine, String repo, Candidate candidate) {
        String timeout = Math.max(1, config.lockTimeout().toMillis()) + "ms";
        // the read is queued behind the lock on the connection; a lock timeout fails it too (first failure wins)
        return Uni.combine().all().unis(
                        c.preparedQuery(LOCK).execute(Tuple.of(timeout, key(machine))),
                        read(c, machine, repo, candidate))
                .asTuple()
                .map(both -> toState(true, both.getItem2()));
    }

    private static Uni<RowSet<Row>> read(SqlConnection c, String machine, String repo, Candidate candidate) {
        return c.preparedQuery(STATE).execute(Tuple.tuple()
                .addString(machine).addString(repo).addString(candidate.device()).addBoolean(candidate.exclusive())
                .addString(candidate.actor()).addOffsetDateTime(utc(candidate.at())));
    }

    public Uni<List<String>> repoNames(SqlConnection c, String machine) {
        return c.preparedQuery(REPO_NAMES).execute(Tuple.of(machine)).map(rows -> {
            List<String> names = new ArrayList<>();
            rows.forEach(row -> names.add(row.getString(0)));
            return names;
        });
    }

    /** Writes the grant (new, or its exclusive flag or expiry changed) of the machine. */
    public Uni<Void> upsertGrant(SqlConnection c, String machine, Grant grant, Instant expiresAt) {
        return c.preparedQuery(UPSERT_GRANT).execute(Tuple.tuple()
                        .addString(machine).addString(grant.repoGuid()).addString(grant.repoName())
                        .addString(grant.device()).addBoolean(grant.exclusive()).addString(grant.grantedBy())
                        .addOffsetDateTime(utc(grant.grantedAt())).addOffsetDateTime(utcOrNull(expiresAt)))
                .replaceWithVoid();
    }

    /** Deletes every grant of the machine; how many. */
    public Uni<Integer> deleteMachineGrants(SqlConnection c, String machine) {
        return c.preparedQuery(DELETE_MACHINE_GRANTS).execute(Tuple.of(machine)).map(RowSet::rowCount);
    }

    /** Appends rows to the history table, in the caller's transaction. */
    public Uni<Void> appendHistory(SqlConnection c, List<HistoryRow> rows) {
        if (rows.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        List<Tuple> tuples = new ArrayList<>(rows.size());
        for (HistoryRow h : rows) {
            tuples.add(Tuple.tuple().addString(h.eventId()).addOffsetDateTime(utc(h.at())).addString(h.event())
                    .addString(h.machine()).addString(h.repoGuid()).addString(h.repoName()).addString(h.device())
                    .addBoolean(h.exclusive()).addString(h.actor()).addLong(h.version()).addString(h.reason())
                    .addString(h.requestReason()).addOffsetDateTime(utcOrNull(h.expiresAt())));
        }
        return c.preparedQuery(INSERT_HISTORY).executeBatch(tuples).replaceWithVoid();
    }

    /**
     * Revokes the machine's key and records the removal (its generation rises), in the removal's transaction
     * under the machine's lock: an inventory or status the machine signed before it is refused from the moment
     * this commits (no key, then a registration later than its signature), on every replica whatever its key
     * cache (the inventory path reads the key under the lock). The revocation is kept in the key history and
     * the audit trail; the removal's generation is returned.
     */
    public Uni<Long> revokeKeyAndRecordRemoval(SqlConnection c, String machine, String actor, Instant at, String reason) {
        return c.preparedQuery(REVOKE_KEY).execute(Tuple.tuple().addString(machine).addString(actor)
                        .addOffsetDateTime(utc(at)).addString(reason).addString(java.util.UUID.randomUUID().toString()))
                .map(rows -> rows.iterator().next().getLong(0));
    }

    /** Forgets what the machine's inventory and gates told (grants and the version stay). */
    public Uni<Void> forgetMachine(SqlConnection c, String machine) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (String statement : FORGET_MACHINE) {
            chain = chain.chain(() -> c.preparedQuery(statement).execute(Tuple.of(machine)).replaceWithVoid());
        }
        return chain;
    }

    /** Takes the machine's lock, then forgets its inventory rows (a tombstone on the inventory topic). */
    public Uni<Void> lockAndForget(SqlConnection c, String machine) {
        String timeout = Math.max(1, config.lockTimeout().toMillis()) + "ms";
        return c.preparedQuery(LOCK).execute(Tuple.of(timeout, key(machine))).chain(() -> forgetMachine(c, machine));
    }

    /** Whether the machine has a registered key: {@code rdc machine setup} ran, even if its agent never published. */
    public Uni<Boolean> hasKey(SqlConnection c, String machine) {
        return c.preparedQuery(HAS_KEY).execute(Tuple.of(machine)).map(rows -> rows.iterator().next().getBoolean(0));
    }

    /** The ids of the gates that reported for the machine. */
    public Uni<List<String>> gateIds(SqlConnection c, String machine) {
        return c.preparedQuery(GATE_IDS).execute(Tuple.of(machine)).map(rows -> {
            List<String> ids = new ArrayList<>();
            rows.forEach(row -> ids.add(row.getString(0)));
            return ids;
        });
    }

    /** Deletes one grant by its key; the number of rows deleted. */
    public Uni<Integer> deleteGrant(SqlConnection c, String machine, String repoGuid, String device) {
        return c.preparedQuery(DELETE_GRANT).execute(Tuple.of(machine, repoGuid, device)).map(RowSet::rowCount);
    }

    /** Raises the machine's version by one; the new version. */
    /** Machines whose newest snapshot was last published before {@code before}, at most {@code limit}, oldest first. */
    public Uni<List<String>> republishDue(Instant before, int limit) {
        return pool.preparedQuery(REPUBLISH_DUE).execute(Tuple.of(utc(before), limit)).map(rows -> {
            List<String> machines = new ArrayList<>();
            rows.forEach(r -> machines.add(r.getString(0)));
            return machines;
        });
    }

    /**
     * Marks the machine's newest snapshot as published now if it was last published before {@code before}
     * (call under the machine's lock); true when this call claimed it.
     */
    public Uni<Boolean> claimRepublish(SqlConnection c, String machine, Instant before) {
        return c.preparedQuery(CLAIM_REPUBLISH).execute(Tuple.of(machine, utc(before)))
                .map(rows -> rows.rowCount() > 0);
    }

    public Uni<Long> bumpVersion(SqlConnection c, String machine) {
        return c.preparedQuery(BUMP_VERSION).execute(Tuple.of(machine))
                .map(rows -> rows.iterator().next().getLong(0));
    }

    /**
     * Appends records to the outbox in the given order (ids rise in that order); their ids. The
     * CloudEvents headers (with a stable {@code ce_id}) are fixed here, so a record published twice
     * after a relay retry carries the same id and a consumer can tell it is a duplicate. The caller rings
     * {@link OutboxSignal#committed()} once the transaction committed: that tells every replica's relay.
     */
    public Uni<List<Long>> appendOutbox(SqlConnection c, List<OutboxRecord> records) {
        List<Tuple> rows = new ArrayList<>(records.size());
        for (OutboxRecord r : records) {
            Map<String, String> headers = new LinkedHashMap<>();
            CloudEventHeaders.of(r.topic(), config.eventSource(), r.subject(), r.eventId(), r.time())
                    .forEach((name, bytes) -> headers.put(name, new String(bytes, StandardCharsets.UTF_8)));
            // a null value is a tombstone (machine removal)
            String payload = r.value() == null ? null : EventJson.toJson(r.value());
            String headerJson = EventJson.toJson(headers);
            // bounded where it is made: a record the broker would refuse is never written (see OutboxRelay)
            int bytes = (payload == null ? 0 : payload.getBytes(StandardCharsets.UTF_8).length) + headerJson.length()
                    + r.key().length();
            if (bytes > config.relay().maxRecordBytes()) {
                throw new OutboxRecordTooLarge(r.subject(), r.topic().name(), bytes, config.relay().maxRecordBytes());
            }
            rows.add(Tuple.of(r.topic().name(), r.key(), r.topic().cloudEventType(), payload, headerJson, utc(r.time())));
        }
        // pipelined: the setting goes out with the rows, no round trip of its own
        Uni<RowSet<Row>> quiet = c.preparedQuery(NOTIFY_AFTER_COMMIT).execute();
        Uni<RowSet<Row>> appended = c.preparedQuery(APPEND_OUTBOX).executeBatch(rows);
        return Uni.combine().all().unis(quiet, appended).asTuple().map(both -> both.getItem2()).map(first -> {
            List<Long> ids = new ArrayList<>(records.size());
            for (RowSet<Row> set = first; set != null; set = set.next()) {
                set.forEach(row -> ids.add(row.getLong(0)));
            }
            return ids;
        });
    }

    private static MachineState toState(boolean locked, RowSet<Row> rows) {
        Row head = rows.iterator().next();
        Map<String, List<String>> devices = new LinkedHashMap<>();
        String[] names = head.getArrayOfStrings("device_names");
        String[] nodes = head.getArrayOfStrings("device_nodes");
        String[] deviceCards = head.getArrayOfStrings("device_cards");
        Map<String, List<String>> cards = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            devices.put(names[i], DeviceNodes.fromJson(nodes[i]));
            cards.put(names[i], DeviceNodes.fromJson(deviceCards[i]));
        }
        List<GrantRow> grants = new ArrayList<>();
        for (Row row : rows) {
            if (row.getString("g_device") == null) {
                continue; // the header alone: no grants, no candidate
            }
            grants.add(new GrantRow(new Grant(row.getString("g_repo_guid"), row.getString("g_repo_name"),
                    row.getString("g_device"), row.getBoolean("g_exclusive"), row.getString("g_granted_by"),
                    row.getOffsetDateTime("g_granted_at").toInstant()), row.getBoolean("g_candidate"),
                    row.getOffsetDateTime("g_expires_at") == null ? null : row.getOffsetDateTime("g_expires_at").toInstant()));
        }
        OffsetDateTime removedAt = head.getOffsetDateTime("removed_at");
        return new MachineState(locked, head.getBoolean("known"), head.getLong("version"), head.getString("repo_guid"),
                devices, cards, grants, removedAt == null ? null : removedAt.toInstant());
    }

    private static OffsetDateTime utc(Instant at) {
        return OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }

    private static OffsetDateTime utcOrNull(Instant at) {
        return at == null ? null : utc(at);
    }

    static String key(String machine) {
        return MachineLock.key(machine);
    }
}
