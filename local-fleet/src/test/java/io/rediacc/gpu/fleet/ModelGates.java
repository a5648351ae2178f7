package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The gates of many machines, modelled the way a docker-gate keeps its grants: one consumer reads
 * {@code gpu.grants.v1} from the beginning, applies a machine's snapshot only when its version is
 * newer than the one held, and reports the applied version on {@code gpu.gate-status.v1} (at once
 * and on a heartbeat). It survives broker outages the way the real gate does: the Kafka client
 * reconnects and the gate keeps what it holds. (The real gate's enforcement of what it holds is the
 * docker-gate module's test.)
 */
final class ModelGates implements AutoCloseable {

    record Held(long version, Set<Grant> grants) {
    }

    static final String GATE_ID = "model-gate";

    private final Set<String> machines;
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> producer;
    private final Thread thread;
    private volatile boolean running = true;
    private long lastHeartbeat;

    /** @param login the client settings of a Kafka user (the broker's: the model plays many machines at once) */
    ModelGates(Map<String, Object> login, Set<String> machines) {
        this.machines = machines;
        Map<String, Object> c = new java.util.HashMap<>(login);
        c.putAll(Map.of(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000));
        consumer = new KafkaConsumer<>(c);
        producer = producer(login);
        List<TopicPartition> partitions = IntStream.range(0, consumer.partitionsFor(Topics.GRANTS).size())
                .mapToObj(p -> new TopicPartition(Topics.GRANTS, p)).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        machines.forEach(m -> held.put(m, new Held(0, Set.of())));
        thread = new Thread(this::follow, "model-gates");
        thread.setDaemon(true);
        thread.start();
    }

    static KafkaProducer<String, byte[]> producer(Map<String, Object> login) {
        return producer(login, 500);
    }

    /** A producer that waits at most {@code maxBlockMs} for metadata (a heartbeat must not wait long for a broker that is away). */
    static KafkaProducer<String, byte[]> producer(Map<String, Object> login, int maxBlockMs) {
        Map<String, Object> c = new java.util.HashMap<>(login);
        c.putAll(Map.of(
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
                ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000));
        return new KafkaProducer<>(c);
    }

    Held held(String machine) {
        return held.get(machine);
    }

    private void follow() {
        try {
            machines.forEach(this::report);
            while (running) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (!machines.contains(record.key()) || record.value() == null) {
                        continue;
                    }
                    GrantSnapshot snapshot = EventJson.fromBytes(record.value(), GrantSnapshot.class);
                    if (snapshot.version() > held.get(record.key()).version()) { // only newer snapshots apply
                        held.put(record.key(), new Held(snapshot.version(), Set.copyOf(snapshot.grants())));
                        report(record.key());
                    }
                }
                if (System.currentTimeMillis() - lastHeartbeat > 3000) {
                    lastHeartbeat = System.currentTimeMillis();
                    machines.forEach(this::report);
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    private void report(String machine) {
        Held h = held.get(machine);
        GateStatus status = new GateStatus(machine, GATE_ID, h.version(), GateStatus.SYNCED, List.copyOf(h.grants()),
                List.of(), 10, Instant.now());
        try {
            // fire and forget, as a heartbeat is: the next one repeats it
            producer.send(SignedMachines.record(Topics.GATE_STATUS, machine, Topics.gateStatusKey(machine, GATE_ID),
                    EventJson.toBytes(status)));
        } catch (RuntimeException brokerAway) {
            // the broker is down: the next heartbeat tries again
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
        producer.close(Duration.ofSeconds(2));
    }
}
