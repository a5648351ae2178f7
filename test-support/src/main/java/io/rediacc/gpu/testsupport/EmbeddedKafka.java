package io.rediacc.gpu.testsupport;

import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * A real Apache Kafka broker (KRaft, broker and controller in one node) running inside the test
 * JVM, with the product's topics. Clients reach it through a {@link TcpProxy} on the advertised
 * address, so a test can cut clients off ({@link #stop()}) and let them back ({@link #restart()})
 * while the broker keeps its data — an outage as clients see it.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private final Path baseDir;
    /** Bound before the broker boots, on a port of its own choosing: the advertised address is its port. */
    private final TcpProxy proxy;
    private final int advertisedPort;
    private KafkaClusterTestKit cluster;
    private volatile boolean reachable;

    private EmbeddedKafka(Path baseDir, TcpProxy proxy) {
        this.baseDir = baseDir;
        this.proxy = proxy;
        this.advertisedPort = proxy.port();
    }

    /** Starts a broker and creates the product's topics with their real cleanup policies. */
    public static EmbeddedKafka start() {
        TcpProxy proxy = null;
        try {
            // The clients' port is bound now, before the broker boots with it as its advertised address. A port
            // merely picked free and bound after the boot was taken meanwhile, once, by another test JVM of CI's
            // parallel lanes; the proxy refuses connections until the broker is up (no client knows it before).
            proxy = new TcpProxy(0, "127.0.0.1", 0);
            proxy.disconnect();
            EmbeddedKafka kafka = new EmbeddedKafka(Files.createTempDirectory("embedded-kafka"), proxy);
            kafka.boot();
            kafka.createTopics(4);
            return kafka;
        } catch (IOException | RuntimeException e) {
            if (proxy != null) {
                proxy.close();
            }
            throw new IllegalStateException("cannot start the embedded Kafka broker: " + e.getMessage(), e);
        }
    }

    public String bootstrapServers() {
        return "localhost:" + advertisedPort;
    }

    /** Cuts every client off the broker and refuses new connections; the broker keeps its data. */
    public synchronized void stop() {
        reachable = false;
        proxy.disconnect();
    }

    /** Lets clients reach the broker again at the same address. */
    public synchronized void restart() {
        proxy.reconnect();
        reachable = true;
    }

    /** True unless clients are cut off. */
    public boolean running() {
        return reachable;
    }

    /** Creates every product topic, with {@code partitions} partitions each, if it does not exist yet. */
    public void createTopics(int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            List<NewTopic> topics = new ArrayList<>();
            for (Topics.TopicSpec spec : Topics.ALL) {
                topics.add(new NewTopic(spec.name(), partitions, (short) 1)
                        .configs(Map.of("cleanup.policy", spec.cleanupPolicy())));
            }
            for (var entry : admin.createTopics(topics).values().entrySet()) {
                try {
                    entry.getValue().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + entry.getKey(), e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        proxy.close();
        if (cluster != null) {
            try {
                cluster.close();
            } catch (Exception ignored) {
                // the JVM is ending the test run anyway
            }
        }
        deleteRecursively(baseDir);
    }

    private synchronized void boot() {
        try {
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setBaseDirectory(baseDir)
                    .setPerServerProperties(Map.of(0, Map.of(
                            "advertised.listeners", "EXTERNAL://localhost:" + advertisedPort)))
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes)
                    .setDeleteOnClose(false)
                    .setConfigProp("offsets.topic.replication.factor", "1")
                    // one partition: the first consumer-group join otherwise waits for 50 to be created
                    .setConfigProp("offsets.topic.num.partitions", "1")
                    .setConfigProp("transaction.state.log.replication.factor", "1")
                    .setConfigProp("transaction.state.log.min.isr", "1")
                    .setConfigProp("group.initial.rebalance.delay.ms", "0")
                    .setConfigProp("num.partitions", "1")
                    .setConfigProp("auto.create.topics.enable", "true")
                    .setConfigProp("log.cleaner.backoff.ms", "1000")
                    // the controller's no-op record every 500 ms (KIP-835) keeps an idle test broker busy for nothing
                    .setConfigProp("metadata.max.idle.interval.ms", "60000")
                    .setConfigProp("log.segment.bytes", "1048576");
            KafkaClusterTestKit kit = builder.build();
            kit.format();
            kit.startup();
            int actualPort = Integer.parseInt(kit.bootstrapServers().replaceAll(".*:", "").replaceAll(",.*", ""));
            proxy.retarget(actualPort);
            proxy.reconnect();
            reachable = true;
            kit.waitForReadyBrokers();
            cluster = kit;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded Kafka broker: " + e.getMessage(), e);
        }
    }

    static void deleteRecursively(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temp directory is harmless
        }
    }
}
