package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A real Apache Kafka broker (KRaft, combined broker and controller) run as a child process from
 * the {@code kafka_2.13} artifact on this module's classpath, with the product's topics created
 * with their real cleanup policies. Its data lives in {@code .fleet/kafka} and survives restarts.
 */
final class KafkaBroker {

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final String classpath;
    private ChildProcess process;

    KafkaBroker(Path dir, int port, int controllerPort, String classpath) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.classpath = classpath;
    }

    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    ChildProcess start(Path logDir) throws IOException {
        Files.createDirectories(dir);
        Path props = dir.resolve("server.properties");
        Files.writeString(props, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "log.dirs=" + dir.resolve("data").toAbsolutePath(),
                "num.partitions=4",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                "log.cleaner.backoff.ms=5000",
                "") );
        Path log4j = dir.resolve("log4j2.properties");
        Files.writeString(log4j, String.join("\n",
                "rootLogger.level=WARN",
                "rootLogger.appenderRef.out.ref=out",
                "appender.out.type=Console",
                "appender.out.name=out",
                "appender.out.layout.type=PatternLayout",
                "appender.out.layout.pattern=[%d] %p %m (%c)%n",
                "logger.server.name=kafka.server.KafkaRaftServer",
                "logger.server.level=INFO",
                ""));
        List<String> java = List.of(javaBin(), "-Xms256m", "-Xmx512m", "-XX:+UseG1GC",
                "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(), "-cp", classpath);
        if (!Files.exists(dir.resolve("data/meta.properties"))) {
            List<String> format = new ArrayList<>(java);
            format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", clusterId(), "-c", props.toString()));
            Process p = new ProcessBuilder(format).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("kafka-format.log").toFile())).start();
            try {
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new FleetException("formatting Kafka's storage failed; see " + logDir.resolve("kafka-format.log"));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FleetException("interrupted while formatting Kafka's storage");
            }
        }
        List<String> run = new ArrayList<>(java);
        run.addAll(List.of("kafka.Kafka", props.toString()));
        process = ChildProcess.start("kafka", run, dir, logDir, Map.of());
        process.awaitReady(this::createTopics, Duration.ofSeconds(90));
        return process;
    }

    private String clusterId() throws IOException {
        Path idFile = dir.resolve("cluster.id");
        if (!Files.exists(idFile)) {
            // a Kafka cluster id is a base64 UUID; Kafka's own Uuid keeps the format exact
            Files.writeString(idFile, org.apache.kafka.common.Uuid.randomUuid().toString());
        }
        return Files.readString(idFile).trim();
    }

    /** Creates the product's topics (idempotent); false while the broker is not answering yet. */
    private boolean createTopics() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000))) {
            List<NewTopic> topics = new ArrayList<>();
            for (Topics.TopicSpec spec : Topics.ALL) {
                topics.add(new NewTopic(spec.name(), 4, (short) 1).configs(Map.of("cleanup.policy", spec.cleanupPolicy())));
            }
            for (var f : admin.createTopics(topics).values().values()) {
                try {
                    f.get(5, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        return false;
                    }
                }
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
