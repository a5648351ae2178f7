package io.rediacc.gpu.grants.messaging;

import com.fasterxml.jackson.core.type.TypeReference;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.repository.GrantWrites;
import io.rediacc.gpu.grants.repository.OutboxSignal;
import io.rediacc.gpu.grants.signing.ServiceKey;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Publishes the outbox to Kafka in id order (per machine, the commit order: changes of one machine
 * are serialised by its lock) and deletes each row once the broker acknowledged it. One relay is
 * active across all replicas: a pass starts with {@code pg_try_advisory_xact_lock} on a constant
 * and holds it until its transaction ends. It runs on its own thread, woken by {@link OutboxSignal},
 * which this replica's commits and every replica's outbox NOTIFY ({@link OutboxWakeups}) ring. Idle, it
 * reads nothing but one cheap look per {@code grants.relay.poll-interval} (60 s) for a wake-up that was
 * lost (a replica that died between its commit and its NOTIFY); only while there is a backlog or after a
 * failure does it look again every {@code grants.relay.retry-interval} (500 ms, doubled per failure in a row).
 * Delivery is at least once: a record acknowledged but not yet deleted when a pass fails is sent
 * again, with the same {@code ce_id}, and snapshots carry their version.
 * <p>
 * A record the producer or broker refuses for good (too large, invalid) is moved to
 * {@code outbox_parked} with the reason instead of stopping the relay: other machines' records keep
 * flowing, and the machine's own later rows stay in the outbox behind it (the order within a machine
 * holds) until an operator drops or retries it ({@code /api/v1/outbox/parked}). Readiness is DOWN
 * while a row is parked (docs/RELIABILITY.md).
 */
@ApplicationScoped
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);
    /** Advisory lock key of the active relay ("grants-outbox"). */
    static final long RELAY_LOCK = 0x6f7574626f787265L;
    private static final Duration DB_STEP = Duration.ofSeconds(30);
    private static final String TRY_RELAY_LOCK = "select pg_try_advisory_xact_lock($1)";
    /** The oldest rows, less those of a machine with a parked row: they wait behind it, in order. */
    private static final String OLDEST = """
            select id, aggregatetype, aggregateid, type, payload, headers from outbox o
            where not exists (select 1 from outbox_parked p where p.aggregateid = o.aggregateid)
            order by id limit $1""";
    /** How many rows are parked, and the oldest one's machine and reason (for the health check). */
    private static final String PARKED = """
            select count(*), (select 'outbox row ' || id || ' of ' || aggregateid || ' on ' || aggregatetype || ': ' || reason
                              from outbox_parked order by id limit 1)
            from outbox_parked""";
    private static final String PARK = """
            with moved as (delete from outbox where id = $1 returning *)
            insert into outbox_parked (id, aggregatetype, aggregateid, type, payload, headers, created_at, parked_at, reason)
            select id, aggregatetype, aggregateid, type, payload, headers, created_at, now(), $2 from moved
            on conflict (id) do nothing""";
    private static final String IDLE_LOOK = """
            select exists (select 1 from outbox o
                           where not exists (select 1 from outbox_parked p where p.aggregateid = o.aggregateid)),
                   (select count(*) from outbox_parked),
                   (select 'outbox row ' || id || ' of ' || aggregateid || ' on ' || aggregatetype || ': ' || reason
                    from outbox_parked order by id limit 1)""";
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
    };

    private final Pool pool;
    private final OutboxSignal signal;
    private final GrantsConfig config;
    private final Map<String, Object> kafkaConfig;
    private final Counter published;
    private final Counter parkedRecords;
    private final Timer acknowledgement;
    private volatile Producer<String, byte[]> producer;
    private volatile Thread thread;
    private volatile boolean running;
    private volatile RelayState state = new RelayState(null, null, 0, null, 0, null);

    /**
     * What the relay last did, for the health check.
     *
     * @param parked       rows in {@code outbox_parked} (seen by every replica, active relay or not)
     * @param oldestParked the oldest parked row's machine, topic and reason; null when none
     */
    public record RelayState(Instant lastPassAt, Instant lastPublishedAt, int pendingSeen, String lastError,
                             long parked, String oldestParked) {
        RelayState failed(String error) {
            return new RelayState(Instant.now(), lastPublishedAt, pendingSeen, error, parked, oldestParked);
        }
    }

    public OutboxRelay(Pool pool, OutboxSignal signal, GrantsConfig config,
                       @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig, MeterRegistry metrics,
                       ServiceKey serviceKey) {
        this.serviceKey = serviceKey;
        this.pool = pool;
        this.signal = signal;
        this.config = config;
        this.kafkaConfig = kafkaConfig;
        this.published = Counter.builder("grants.outbox.published")
                .description("Outbox records the relay published to Kafka")
                .register(metrics);
        this.parkedRecords = Counter.builder("grants.outbox.parked.records")
                .description("Outbox records the relay parked because Kafka refused them for good")
                .register(metrics);
        // The Kafka half of a grant's way to the gates, apart from the transaction and the relay's own work.
        this.acknowledgement = Timer.builder("grants.outbox.acknowledgement")
                .description("From a record handed to the Kafka producer to the broker's acknowledgement (acks=all)")
                .register(metrics);
        Gauge.builder("grants.outbox.parked", this, relay -> relay.state.parked())
                .description("Rows in outbox_parked now; the machine's later records wait behind them until an operator acts")
                .register(metrics);
        Gauge.builder("grants.outbox.pending", this, relay -> relay.state.pendingSeen())
                .description("Outbox records the relay's last pass read but could not publish yet (retried; 0 on a standby replica)")
                .register(metrics);
    }

    private final ServiceKey serviceKey;

    void onStart(@Observes StartupEvent event) {
        producer = new KafkaProducer<>(producerConfig());
        running = true;
        thread = new Thread(this::run, "outbox-relay");
        thread.setDaemon(true);
        thread.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(2));
        }
    }

    public RelayState state() {
        return state;
    }

    Map<String, Object> producerConfig() {
        Map<String, Object> props = new HashMap<>();
        // the application's kafka.* settings (bootstrap servers, TLS, SASL) apply to the relay too
        kafkaConfig.forEach((k, v) -> {
            if (ProducerConfig.configNames().contains(k)) {
                props.put(k, v);
            }
        });
        long delivery = config.relay().deliveryTimeout().toMillis();
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true); // retries never reorder or duplicate a partition
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // aligned with the topics' max.message.bytes (docs/EVENTS.md): the producer refuses what the broker would
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, config.relay().maxRecordBytes());
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, config.relay().compression());
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) delivery);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(30_000, delivery));
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Math.min(10_000, delivery));
        props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "grant-service-outbox-" + UUID.randomUUID().toString().substring(0, 8));
        return props;
    }

    private void run() {
        int failures = 0;
        boolean due = true; // a pass at start: rows a stopped replica left
        boolean backlog = false;
        while (running) {
            try {
                if (!due) {
                    due = awaitWork(backlog);
                }
                if (due) {
                    Pass last = drain();
                    failures = last.failure() == null ? 0 : failures + 1;
                    backlog = last.backlog();
                }
                due = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                failures++;
                state = state.failed(describe(e));
                if (failures == 1 || failures % 20 == 0) { // a long outage is reported, not shouted every pass
                    LOG.warnf("outbox pass failed (%d in a row), retrying: %s", failures, describe(e));
                }
            }
            if (failures > 0) {
                sleepQuietly(backoff(failures));
                due = true;
            }
        }
    }

    /**
     * Waits for a reason to pass: a wake-up ({@link OutboxSignal}), a backlog to retry after
     * {@code retry-interval}, or, idle after {@code poll-interval}, a row that a lost wake-up left.
     */
    private boolean awaitWork(boolean backlog) throws InterruptedException {
        boolean rung = signal.await(backlog ? config.relay().retryInterval() : config.relay().pollInterval());
        return rung || backlog || outboxHasRows();
    }

    /** Passes while each one publishes a full batch (more rows are likely waiting); the last pass. */
    private Pass drain() {
        Pass pass;
        do {
            pass = pass();
        } while (running && pass.full() && pass.failure() == null);
        return pass;
    }

    /**
     * The idle relay's look at the outbox, one statement: whether a row waits that may be published now
     * (not one held behind a parked row of its machine), and the parked rows for the health check.
     */
    private boolean outboxHasRows() {
        Row row = pool.preparedQuery(IDLE_LOOK).execute().await().atMost(DB_STEP).iterator().next();
        state = new RelayState(state.lastPassAt(), state.lastPublishedAt(), state.pendingSeen(), state.lastError(),
                row.getLong(1), row.getString(2));
        return row.getBoolean(0);
    }

    /** One pass over the oldest rows of the outbox. */
    record Pass(int rows, int published, int batchSize, Exception failure) {
        boolean full() {
            return rows == batchSize && published == rows;
        }

        /** Rows were left (not published, or another replica's relay holds the lock): look again soon. */
        boolean backlog() {
            return failure != null || published < rows;
        }
    }

    /**
     * One pass: take the relay lock and read the oldest rows, send them, wait for the broker's
     * acknowledgements, then delete what was acknowledged and park what was refused for good, in the
     * same transaction as the lock.
     */
    Pass pass() {
        int batch = config.relay().batchSize();
        SqlConnection connection = pool.getConnection().await().atMost(DB_STEP);
        try {
            Transaction tx = null;
            try {
                Read read = lockAndRead(connection, batch);
                tx = read.tx();
                if (!read.active()) {
                    return standBy(read, batch);
                }
                Delivery delivery = new Delivery();
                delivery.send(read.rows());
                delivery.awaitAcknowledgements();
                Row parkedNow = settle(connection, delivery, read.parked());
                tx.commit().await().atMost(DB_STEP);
                return report(read.rows().size(), delivery, parkedNow, batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                rollbackQuietly(tx);
                throw new IllegalStateException("interrupted", e);
            } catch (RuntimeException e) {
                rollbackQuietly(tx);
                throw e;
            }
        } finally {
            connection.close().await().atMost(DB_STEP);
        }
    }

    /** What a pass read under its transaction: whether it holds the relay lock, the oldest rows, the parked count. */
    private record Read(Transaction tx, boolean active, RowSet<Row> rows, Row parked) {
    }

    /**
     * BEGIN, the lock and the read go out together (one round trip, GrantWrites.begin): the read starts
     * after the lock was tried, so when it was taken the rows are as of holding it; when not, they are
     * dropped.
     */
    private Read lockAndRead(SqlConnection connection, int batch) {
        Uni<Transaction> begun = GrantWrites.begin(connection);
        var all = Uni.combine().all().unis(
                        connection.preparedQuery(TRY_RELAY_LOCK).execute(Tuple.of(RELAY_LOCK)),
                        connection.preparedQuery(OLDEST).execute(Tuple.of(batch)),
                        connection.preparedQuery(PARKED).execute())
                .asTuple().await().atMost(DB_STEP);
        Transaction tx = begun.await().atMost(DB_STEP);
        return new Read(tx, all.getItem1().iterator().next().getBoolean(0), all.getItem2(), all.getItem3().iterator().next());
    }

    /**
     * Another replica's relay is publishing: this one only notes the parked rows. The rows seen count as
     * a backlog, so that this one takes over soon when that replica stops mid-way.
     */
    private Pass standBy(Read read, int batch) {
        read.tx().rollback().await().atMost(DB_STEP);
        state = new RelayState(state.lastPassAt(), state.lastPublishedAt(), state.pendingSeen(),
                state.lastError(), read.parked().getLong(0), read.parked().getString(1));
        return new Pass(read.rows().size(), 0, batch, null);
    }

    /**
     * One pass's records on their way: sent in id order, then acknowledged in that order. A machine with
     * a record parked in this pass is held: its later rows wait, so its order holds.
     */
    private final class Delivery {
        final List<Row> sent = new ArrayList<>();
        final List<Future<RecordMetadata>> acks = new ArrayList<>();
        final Map<Long, String> park = new LinkedHashMap<>(); // outbox id -> why the producer or broker refused it
        final Set<String> held = new HashSet<>(); // machines with a row parked in this pass: their later rows wait
        final List<Long> done = new ArrayList<>();
        Exception failure;

        /** Hands each row to the producer; stops at the first failure that concerns every record. */
        void send(RowSet<Row> rows) {
            for (Row row : rows) {
                String key = row.getString("aggregateid");
                if (held.contains(key)) {
                    continue;
                }
                try {
                    long handedOver = System.nanoTime();
                    Future<RecordMetadata> ack = producer.send(toRecord(row), (metadata, error) -> {
                        if (error == null) {
                            acknowledgement.record(System.nanoTime() - handedOver, TimeUnit.NANOSECONDS);
                        }
                    });
                    String refused = refusal(ack);
                    if (refused != null) { // refused before it left (over max.request.size): later rows not sent
                        hold(row, refused);
                        continue;
                    }
                    acks.add(ack);
                    sent.add(row);
                } catch (UnreadableRow e) {
                    hold(row, e.getMessage());
                } catch (RuntimeException e) {
                    failure = e; // e.g. no metadata within max.block.ms: the broker is unreachable
                    return;
                }
            }
        }

        /** Waits for each sent record's acknowledgement in order; nothing after the first unacknowledged one counts. */
        void awaitAcknowledgements() throws InterruptedException {
            for (int i = 0; i < acks.size(); i++) {
                Row row = sent.get(i);
                try {
                    acks.get(i).get(config.relay().deliveryTimeout().toMillis() + 5000, TimeUnit.MILLISECONDS);
                    done.add(row.getLong("id"));
                    if (held.contains(row.getString("aggregateid"))) {
                        LOG.warnf("outbox row %d of %s was published after an earlier row of that machine was parked"
                                + " (the broker refused that one after it was sent)", row.getLong("id"),
                                row.getString("aggregateid"));
                    }
                } catch (ExecutionException e) {
                    if (permanent(e.getCause())) { // the broker refused this record for good: park it, go on
                        hold(row, describe(e));
                        continue;
                    }
                    failure = e; // keep the order: nothing after the first unacknowledged row is deleted
                    return;
                } catch (TimeoutException e) {
                    failure = e;
                    return;
                }
            }
        }

        private void hold(Row row, String reason) {
            park.put(row.getLong("id"), reason);
            held.add(row.getString("aggregateid"));
        }
    }

    /** Deletes the acknowledged rows and parks the refused ones; the parked rows as they are now. */
    private static Row settle(SqlConnection connection, Delivery delivery, Row parkedBefore) {
        if (!delivery.done.isEmpty()) {
            connection.preparedQuery("delete from outbox where id = any($1)")
                    .execute(Tuple.of(delivery.done.toArray(new Long[0]))).await().atMost(DB_STEP);
        }
        if (delivery.park.isEmpty()) {
            return parkedBefore;
        }
        List<Tuple> parked = new ArrayList<>();
        delivery.park.forEach((id, reason) -> parked.add(Tuple.of(id, reason)));
        connection.preparedQuery(PARK).executeBatch(parked).await().atMost(DB_STEP);
        return connection.preparedQuery(PARKED).execute().await().atMost(DB_STEP).iterator().next();
    }

    /** After the commit: counters, the log, the health check's state, and the pass's outcome. */
    private Pass report(int read, Delivery delivery, Row parkedNow, int batch) {
        published.increment(delivery.done.size());
        parkedRecords.increment(delivery.park.size());
        delivery.park.forEach((id, reason) -> LOG.errorf("outbox row %d parked in outbox_parked; the machine's later"
                + " records wait behind it until an operator drops or retries it (GET /api/v1/outbox/parked): %s",
                id, reason));
        Instant now = Instant.now();
        Exception failure = delivery.failure;
        state = new RelayState(now, delivery.done.isEmpty() ? state.lastPublishedAt() : now,
                read - delivery.done.size() - delivery.park.size(), failure == null ? null : describe(failure),
                parkedNow.getLong(0), parkedNow.getString(1));
        if (failure != null) {
            LOG.warnf("outbox: %d of %d records published; retrying the rest: %s", delivery.done.size(), read,
                    describe(failure));
        }
        // rows held behind a parked one count as handled: the next pass reads past them
        return new Pass(read, read - delivery.sent.size() + delivery.done.size(), batch, failure);
    }

    /** A row the relay cannot turn into a record: parked like a refused one, it would never improve. */
    static final class UnreadableRow extends RuntimeException {
        UnreadableRow(String message) {
            super(message);
        }
    }

    /** Why the producer refused the record at once, if the send failed before it left; null otherwise. */
    private static String refusal(Future<RecordMetadata> ack) {
        if (!ack.isDone()) {
            return null;
        }
        try {
            ack.get();
            return null;
        } catch (ExecutionException e) {
            return permanent(e.getCause()) ? describe(e) : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * A refusal of this record itself, which no retry changes: too large, or invalid for the topic.
     * Broker outages, timeouts and authorization errors are not: they concern every record, and are
     * retried in order as before (parking every record on an ACL mistake would reorder the fleet).
     */
    static boolean permanent(Throwable cause) {
        return cause instanceof RecordTooLargeException || cause instanceof RecordBatchTooLargeException
                || cause instanceof InvalidRecordException;
    }

    /** A row without a payload is a tombstone (a removed machine's records). */
    private static byte[] payload(String json) {
        return json == null ? null : json.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The row as a record, signed with grant-service's key (over topic, key, ce_time and payload) as it leaves.
     * The columns are those Debezium's outbox event router reads (V5): {@code aggregatetype} is the topic,
     * {@code aggregateid} the key, {@code type} the CloudEvents type.
     */
    private ProducerRecord<String, byte[]> toRecord(Row row) {
        byte[] value = payload(row.getString("payload"));
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(row.getString("aggregatetype"), null,
                row.getString("aggregateid"), value);
        Map<String, byte[]> signed = new java.util.LinkedHashMap<>();
        try {
            Map<String, String> headers = EventJson.mapper().readValue(row.getString("headers"), HEADERS);
            headers.forEach((name, v) -> signed.put(name, v.getBytes(StandardCharsets.UTF_8)));
            String type = row.getString("type");
            if (!type.isEmpty()) { // the row's type column is its ce_type, as a CDC connector would read it
                signed.put(io.rediacc.gpu.contracts.events.CloudEventHeaders.TYPE, type.getBytes(StandardCharsets.UTF_8));
            }
            // every row this service writes has its ce_time; one without (written by hand) gets the time it leaves
            signed.putIfAbsent(io.rediacc.gpu.contracts.events.CloudEventHeaders.TIME,
                    java.time.Instant.now().toString().getBytes(StandardCharsets.UTF_8));
            serviceKey.signer().sign(record.topic(), record.key(), signed, value);
        } catch (IOException | IllegalArgumentException e) {
            throw new UnreadableRow("outbox row " + row.getLong("id") + " has unreadable headers: " + e.getMessage());
        }
        signed.forEach((name, v) -> record.headers().add(new RecordHeader(name, v)));
        return record;
    }

    private static void rollbackQuietly(Transaction tx) {
        if (tx == null) {
            return; // not begun, or failed before BEGIN was answered: closing the connection rolls back what it began
        }
        try {
            tx.rollback().await().atMost(DB_STEP);
        } catch (RuntimeException ignored) {
            // the connection is closed right after; PostgreSQL rolls back then
        }
    }

    /** Retry interval doubled per failed pass in a row, at most 10 s: recovers fast, idles politely in an outage. */
    private Duration backoff(int failures) {
        long base = config.relay().retryInterval().toMillis();
        return Duration.ofMillis(Math.min(10_000, base << Math.min(failures - 1, 5)));
    }

    private static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
