package io.rediacc.gpu.floor;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * bench/inventory-memory.sh: the memory floor of inventory-service's stack. This app is packaged with
 * inventory-service's own pom (its extensions and libraries at the bench's commit, Flyway's start included; with
 * or without Hibernate Reactive) and none of its code. With floor.kafka=true it also does the least the service
 * must do with its inputs: one consumer reading its five topics from the start (the service runs six, one per
 * channel) and one query on the reactive PostgreSQL pool, both idle once done. Whatever this app takes under the
 * image's flags, the service cannot take less.
 */
@ApplicationScoped
public class InventoryFloorApp {

    /** The service's inputs (contracts' Topics), named here so the app needs none of the project's code. */
    private static final List<String> TOPICS = List.of("gpu.inventory.v1", "gpu.gate-status.v1", "gpu.grants.v1",
            "gpu.grant-events.v1", "gpu.gate-decisions.v1");

    @ConfigProperty(name = "floor.kafka", defaultValue = "false")
    boolean kafka;
    @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "localhost:9092")
    String bootstrap;

    private final Pool pool;
    private volatile boolean stopping;

    public InventoryFloorApp(Pool pool) {
        this.pool = pool;
    }

    void start(@Observes StartupEvent event) {
        if (!kafka) {
            return;
        }
        pool.query("select count(*) from pg_class").execute().await().atMost(Duration.ofSeconds(30));
        Thread poller = new Thread(() -> {
            try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG, "floor-" + UUID.randomUUID(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"),
                    new StringDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(TOPICS);
                while (!stopping) {
                    consumer.poll(Duration.ofSeconds(1));
                }
            }
        }, "floor-kafka");
        poller.setDaemon(true);
        poller.start();
        System.out.println("floor: kafka consumer and database pool started");
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
    }
}
