package io.rediacc.gpu.inventory.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Removed machines' Kafka users still to delete (issue 31). The machine's signed removal (grant-service's tombstone
 * on {@code gpu.inventory.v1}) is read from Kafka, so the user goes even when this service was down when
 * {@code rdc machine remove} ran: the removal's ingest transaction remembers the deletion ({@link #remember}, table
 * {@code kafka_user_removals}), and it is tried, with a doubling wait while the broker's admin API fails, until it
 * is done; a restart forgets nothing. A new user for the machine ({@code rdc machine setup}) cancels it, under the
 * same per-machine lock ({@link #locked}), so a late retry never deletes the user of a machine that rejoined.
 * {@code inventory_kafka_users_removals_pending} counts what is left. Only with {@code inventory.kafka-users.enabled}.
 */
@ApplicationScoped
public class KafkaUserRemovals {

    private static final Logger LOG = Logger.getLogger(KafkaUserRemovals.class);

    /** Serialises a machine's user changes across replicas: a removal's deletion, setup's creation, DELETE. */
    private static final String LOCK = "select pg_advisory_xact_lock(hashtextextended('kafka-user:' || $1, 0))";
    private static final String REMEMBER = """
            insert into kafka_user_removals (machine, removed_at, next_attempt_at)
            select machine, at, now() from unnest($1::text[], $2::timestamptz[]) as t(machine, at)
            on conflict (machine) do update set removed_at = greatest(kafka_user_removals.removed_at, excluded.removed_at)""";
    private static final String DUE = """
            select machine from kafka_user_removals where next_attempt_at <= $1 order by next_attempt_at limit 100""";
    private static final String PENDING_FOR = "select 1 from kafka_user_removals where machine = $1";
    private static final String DONE = "delete from kafka_user_removals where machine = $1";
    private static final String FAILED = """
            update kafka_user_removals set attempts = attempts + 1, last_error = $2,
                next_attempt_at = $3::timestamptz + least($4::bigint * power(2, least(attempts, 30))::bigint, $5::bigint) * interval '1 millisecond'
            where machine = $1 returning attempts, next_attempt_at""";
    private static final String COUNT = "select count(*) from kafka_user_removals";

    private final Pool pool;
    private final MachineKafkaUsers users;
    private final InventoryConfig.KafkaUsers config;
    private final Clock clock;
    private final AtomicLong pending = new AtomicLong();
    /** Set at shutdown: the database pool closes while the Kafka consumers still stop, and a tick then has nothing to say. */
    private final AtomicBoolean stopping = new AtomicBoolean();

    public KafkaUserRemovals(Pool pool, MachineKafkaUsers users, InventoryConfig config, MeterRegistry registry) {
        this.pool = pool;
        this.users = users;
        this.config = config.kafkaUsers();
        this.clock = Clock.systemUTC();
        Gauge.builder("inventory.kafka-users.removals.pending", pending, AtomicLong::get)
                .description("Removed machines whose Kafka user is still to delete (retried while the broker's admin API fails)")
                .register(registry);
    }

    /**
     * In the caller's transaction (the one that applies the removals): remembers each removed machine's user for
     * deletion, when this service manages Kafka users; nothing otherwise.
     */
    public Uni<Void> remember(SqlConnection c, Map<String, Instant> removedAt) {
        if (!config.enabled() || removedAt.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        String[] machines = removedAt.keySet().toArray(String[]::new);
        OffsetDateTime[] at = new OffsetDateTime[machines.length];
        for (int i = 0; i < machines.length; i++) {
            at[i] = OffsetDateTime.ofInstant(removedAt.get(machines[i]), ZoneOffset.UTC);
        }
        return c.preparedQuery(REMEMBER).execute(Tuple.of(machines, at)).invoke(rows ->
                LOG.infof("machine(s) %s removed from the fleet: their Kafka users are deleted next", String.join(", ", machines)))
                .replaceWithVoid();
    }

    /**
     * Deletes the users whose time has come; a failure waits {@code removal-retry}, doubled per failure up to
     * {@code removal-retry-max}. Runs on a worker thread: the admin calls block.
     */
    @Scheduled(every = "${inventory.kafka-users.removal-check:2s}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void deleteDue() {
        if (!config.enabled() || stopping.get()) {
            return;
        }
        try {
            List<String> due = new ArrayList<>();
            pool.preparedQuery(DUE).execute(Tuple.of(OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC)))
                    .await().atMost(Duration.ofSeconds(30)).forEach(row -> due.add(row.getString(0)));
            for (String machine : due) {
                delete(machine);
            }
            pending.set(pool.query(COUNT).execute().await().atMost(Duration.ofSeconds(30)).iterator().next().getLong(0));
        } catch (RuntimeException e) {
            if (!stopping.get()) {
                LOG.warnf("cannot look at the removed machines' Kafka users to delete: %s", e.getMessage());
            }
        }
    }

    void stopping(@Observes ShutdownEvent event) {
        stopping.set(true);
    }

    private void delete(String machine) {
        String principal = KafkaAccess.machinePrincipal(machine);
        try {
            Boolean existed = locked(pool, machine, true, () -> users.deleteAfterRemoval(machine));
            if (existed != null) {
                LOG.infof("Kafka user %s %s: the machine was removed from the fleet", principal,
                        existed ? "deleted" : "was absent; its ACLs and quota removed");
            }
        } catch (RuntimeException e) {
            Row next = pool.preparedQuery(FAILED).execute(Tuple.of(machine, String.valueOf(e.getMessage()),
                            OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC), config.removalRetry().toMillis(),
                            config.removalRetryMax().toMillis()))
                    .await().atMost(Duration.ofSeconds(30)).iterator().next();
            LOG.warnf("the Kafka user %s of a removed machine is not deleted yet (try %d): %s; next try at %s", principal,
                    next.getInteger(0), e.getMessage(), next.getOffsetDateTime(1).toInstant());
        }
    }

    /**
     * Runs {@code change} (a blocking Kafka admin call) under the machine's user lock, in a transaction that then
     * forgets the machine's pending deletion: a new user cancels it, a deletion completes it. With
     * {@code onlyIfPending}, answers null without running it when no deletion is pending (done by another replica,
     * or cancelled because the machine rejoined). A failure of {@code change} keeps the pending deletion.
     */
    static <T> T locked(Pool pool, String machine, boolean onlyIfPending, Supplier<T> change) {
        return pool.withTransaction(c -> c.preparedQuery(LOCK).execute(Tuple.of(machine))
                        .chain(() -> c.preparedQuery(PENDING_FOR).execute(Tuple.of(machine)))
                        .chain(rows -> {
                            if (onlyIfPending && !rows.iterator().hasNext()) {
                                return Uni.createFrom().<T>nullItem();
                            }
                            return Uni.createFrom().item(change).runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                                    .call(done -> c.preparedQuery(DONE).execute(Tuple.of(machine)));
                        }))
                .await().indefinitely();
    }
}
