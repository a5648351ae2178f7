package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.json.GrantSnapshotDecoder;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.events.DropReason;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Reads {@code gpu.grants.v1} from the beginning on a dedicated thread and applies this
 * machine's snapshots to the {@link GrantStore}.
 *
 * <p>Partitions are assigned, not subscribed: a gate must read every partition from offset 0 on
 * every start, and "caught up" must mean exactly "read to the end offsets seen at start", which a
 * group rebalance would blur. The group id only names the gate to Kafka; no offset is committed.
 */
public final class GrantsFeed implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(GrantsFeed.class);
    private static final Duration RETRY = Duration.ofSeconds(1);
    /**
     * How long the broker may hold an empty fetch. With {@code fetch.min.bytes=1} it answers as soon
     * as a record arrives, so this bounds only the idle round trips: Kafka's 500 ms default made an
     * idle gate fetch (and record fetch metrics, revalidate positions...) twice a second for nothing.
     */
    private static final Duration IDLE_FETCH_WAIT = Duration.ofSeconds(5);
    /** How long one poll blocks once caught up; {@link #close()} wakes it. Polls send no extra fetches. */
    private static final Duration POLL = Duration.ofSeconds(5);
    /** While catching up, the caught-up check runs at least this often. */
    private static final Duration CATCH_UP_POLL = Duration.ofMillis(500);

    private final GrantStore store;
    private final Properties consumerConfig;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile KafkaConsumer<String, byte[]> consumer;
    /** Records not read yet, as the consumer last knew it after a poll; NaN before it knows. */
    private volatile double lagRecords = Double.NaN;

    private final SignedSnapshots signed;

    /**
     * @param kafka  client settings (bootstrap servers, security); the feed's own settings override them
     * @param signed which snapshots are grant-service's: no other is applied
     */
    public GrantsFeed(GrantStore store, Map<String, Object> kafka, String groupId, Duration apiTimeout,
                      SignedSnapshots signed) {
        this.store = store;
        this.signed = signed;
        this.consumerConfig = KafkaClientSettings.from(kafka);
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        consumerConfig.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerConfig.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) apiTimeout.toMillis());
        consumerConfig.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) apiTimeout.toMillis());
        consumerConfig.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2000);
        // The held fetch must come back well within the request timeout, or it would count as a failure.
        consumerConfig.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                (int) Math.max(1, Math.min(IDLE_FETCH_WAIT.toMillis(), apiTimeout.toMillis() / 2)));
        consumerConfig.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        consumerConfig.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.thread = new Thread(this::run, "gate-grants-feed");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    private void run() {
        while (running) {
            try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumerConfig)) {
                consumer = c;
                if (!running) {
                    return;
                }
                readToEndThenFollow(c);
            } catch (WakeupException e) {
                return;
            } catch (KafkaException e) {
                LOG.warnf("grants feed interrupted, retrying: %s", e.getMessage());
                // Kafka did not answer within the API timeout before the topic was read to its end: only now
                // may the snapshot kept on disk be enforced (docs/ARCHITECTURE.md: it is there to survive an outage at start)
                store.kafkaUnreachable();
                sleep(RETRY);
            } catch (RuntimeException e) {
                LOG.error("grants feed failed, retrying", e);
                sleep(RETRY);
            } finally {
                consumer = null;
            }
        }
    }

    private void readToEndThenFollow(KafkaConsumer<String, byte[]> c) {
        List<PartitionInfo> infos = c.partitionsFor(Topics.GRANTS);
        if (infos == null || infos.isEmpty()) {
            throw new KafkaException("topic " + Topics.GRANTS + " has no partitions yet");
        }
        List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        c.assign(partitions);
        c.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(partitions));
        LOG.debugf("reading %s to end offsets %s", Topics.GRANTS, end);
        while (running) {
            // Checked before polling too: an empty topic is caught up at once, not after a poll's wait.
            if (!end.isEmpty()) {
                end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
                if (end.isEmpty()) {
                    store.markCaughtUp();
                }
            }
            for (ConsumerRecord<String, byte[]> record : c.poll(end.isEmpty() ? POLL : CATCH_UP_POLL)) {
                if (store.machine().equals(record.key()) && record.value() != null && signed.trusted(record)) {
                    applyRecord(record);
                }
            }
            long lag = 0;
            for (TopicPartition p : partitions) {
                lag += c.currentLag(p).orElse(0);
            }
            lagRecords = lag;
        }
    }

    /** Records of the grants topic this gate has not read yet (consumer lag after its last poll); NaN before the first. */
    public double lagRecords() {
        return lagRecords;
    }

    /**
     * Fetch responses the consumer has received so far (its {@code fetch-total} metric), 0 while it
     * has none. Read-only use of the metrics registry, which the consumer allows from any thread.
     */
    long fetches() {
        KafkaConsumer<String, byte[]> c = consumer;
        if (c == null) {
            return 0;
        }
        return c.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals("consumer-fetch-manager-metrics") && e.getKey().name().equals("fetch-total")
                        && !e.getKey().tags().containsKey("topic"))
                .mapToLong(e -> ((Number) e.getValue().metricValue()).longValue())
                .sum();
    }

    private void applyRecord(ConsumerRecord<String, byte[]> record) {
        GrantSnapshot snapshot;
        try {
            snapshot = GrantSnapshotDecoder.read(record.value());
        } catch (RuntimeException e) {
            // A malformed record must not stop enforcement of the last good snapshot; it is counted like a forged one.
            signed.dropped(record, DropReason.INVALID, "not a strict grant snapshot: " + e.getMessage());
            return;
        }
        try {
            store.apply(snapshot, SignedSnapshots.signedParts(record));
        } catch (RuntimeException e) {
            LOG.errorf("skipping grant snapshot at %s-%d@%d: %s", record.topic(), record.partition(), record.offset(),
                    e.getMessage());
        }
    }

    private void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
