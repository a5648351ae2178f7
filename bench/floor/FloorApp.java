package io.rediacc.gpu.floor;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * bench/gate-memory.sh FLOOR=1: the memory floor of the gate's stack. This app is packaged with docker-gate's own
 * pom (its extensions and libraries, at the bench's commit) and none of its code. With floor.kafka=true it also
 * does the least the gate must do with Kafka: a consumer reading gpu.grants.v1 from the start (as GrantsFeed) and
 * a producer connected for gpu.gate-status.v1 (as GateEventsProducer), both idle once caught up. Whatever this
 * app takes under the unit's flags, the gate cannot take less.
 */
@ApplicationScoped
public class FloorApp {

    @ConfigProperty(name = "floor.kafka", defaultValue = "false")
    boolean kafka;
    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "localhost:9092")
    String bootstrap;

    private volatile boolean stopping;
    private Thread poller;

    void start(@Observes StartupEvent event) {
        if (!kafka) {
            return;
        }
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"), new StringSerializer(), new ByteArraySerializer());
        producer.partitionsFor("gpu.gate-status.v1"); // connected, as the gate's status publisher is
        poller = new Thread(() -> {
            try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG, "floor-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                    new StringDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of("gpu.grants.v1"));
                while (!stopping) {
                    consumer.poll(Duration.ofSeconds(1));
                }
            } finally {
                producer.close(Duration.ofSeconds(2));
            }
        }, "floor-kafka");
        poller.setDaemon(true);
        poller.start();
        System.out.println("floor: kafka clients started");
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
    }
}
