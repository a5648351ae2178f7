package io.rediacc.gpu.grants.testing;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A stand-in for a machine's docker-gate as the grant service sees it: it reads the machine's
 * snapshots from {@code gpu.grants.v1}, applies each newer version and reports it on
 * {@code gpu.gate-status.v1} (the real gate also enforces them; that is the gate module's test).
 */
public final class FakeGate implements AutoCloseable {

    private final String machine;
    private final String gateId;
    private final Fleet fleet;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private volatile long applied;
    private volatile List<Grant> grants = List.of();
    private volatile boolean running = true;

    private FakeGate(String bootstrapServers, String machine, String gateId) {
        this.machine = machine;
        this.gateId = gateId;
        this.fleet = new Fleet(bootstrapServers);
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false));
        List<TopicPartition> partitions = consumer.partitionsFor(Topics.GRANTS).stream()
                .map(p -> new TopicPartition(Topics.GRANTS, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.thread = new Thread(this::follow, "fake-gate-" + gateId);
        this.thread.setDaemon(true);
    }

    /** Starts a gate that reports version 0 at once (it is live) and then follows the machine's snapshots. */
    public static FakeGate start(String bootstrapServers, String machine, String gateId) {
        FakeGate gate = new FakeGate(bootstrapServers, machine, gateId);
        gate.fleet.publishGateStatus(machine, gateId, 0, List.of());
        gate.thread.start();
        return gate;
    }

    public long appliedVersion() {
        return applied;
    }

    private void follow() {
        try {
            while (running) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    if (!machine.equals(record.key()) || record.value() == null) {
                        continue;
                    }
                    GrantSnapshot snapshot = EventJson.fromBytes(record.value(), GrantSnapshot.class);
                    if (snapshot.version() > applied) { // a snapshot applies only when newer
                        applied = snapshot.version();
                        grants = snapshot.grants();
                        fleet.publishGateStatus(machine, gateId, applied, grants);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        fleet.close();
    }
}
