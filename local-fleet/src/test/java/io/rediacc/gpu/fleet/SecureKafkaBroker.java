package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.TopicExistsException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka broker (KRaft, one combined node, child process) secured the way
 * {@code deploy/kubernetes/kafka-cluster.yaml} secures the fleet's cluster: its only client
 * listener is SASL_SSL with SCRAM-SHA-512, ACLs are enforced by {@code StandardAuthorizer} and
 * nothing is allowed without an ACL. The super user {@code admin} (SCRAM credentials written at
 * format time, as Strimzi's operators are trusted) creates the topics, users and ACLs. The
 * controller listener uses SASL PLAIN with a user of its own, so no anonymous principal is a super
 * user anywhere; a fresh directory and a self-signed certificate are made per start.
 */
final class SecureKafkaBroker {

    static final String ADMIN = "admin";
    static final String MECHANISM = "SCRAM-SHA-512";
    private static final String STORE_PASSWORD = "store-" + secret();

    private final Path dir;
    private final String classpath;
    private final String adminPassword = secret();
    private final String controllerPassword = secret();
    private int port;
    private ChildProcess process;

    SecureKafkaBroker(Path dir, String classpath) {
        this.dir = dir;
        this.classpath = classpath;
    }

    static String secret() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    Path truststore() {
        return dir.resolve("truststore.p12");
    }

    /** Client settings of a SCRAM user over TLS: what the services get from kafka.* / KAFKA_* in Kubernetes. */
    Map<String, Object> clientConfig(String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        c.put(SaslConfigs.SASL_MECHANISM, MECHANISM);
        c.put(SaslConfigs.SASL_JAAS_CONFIG, scramJaas(user, password));
        c.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
        c.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore().toString());
        c.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, STORE_PASSWORD);
        return c;
    }

    Map<String, Object> adminConfig() {
        Map<String, Object> c = clientConfig(ADMIN, adminPassword);
        c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        return c;
    }

    private static String scramJaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    ChildProcess start(Path logDir) throws IOException {
        Files.createDirectories(dir);
        Files.createDirectories(logDir);
        port = FleetPorts.pick();
        int controllerPort = FleetPorts.pick();
        // the certificate (a JVM of its own) is made while the storage is formatted
        Process keytool = startKeytool(logDir);
        Path props = dir.resolve("server.properties");
        Files.writeString(props, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=SECURE://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=SECURE://127.0.0.1:" + port,
                "listener.security.protocol.map=SECURE:SASL_SSL,CONTROLLER:SASL_PLAINTEXT",
                "inter.broker.listener.name=SECURE",
                "controller.listener.names=CONTROLLER",
                // clients and the broker itself: SCRAM over TLS, as the Strimzi cluster's only listener
                "listener.name.secure.sasl.enabled.mechanisms=" + MECHANISM,
                "sasl.mechanism.inter.broker.protocol=" + MECHANISM,
                "listener.name.secure.scram-sha-512.sasl.jaas.config=" + scramJaas(ADMIN, adminPassword),
                // KRaft controllers cannot authenticate with SCRAM (its credentials live in the metadata they serve)
                "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
                "sasl.mechanism.controller.protocol=PLAIN",
                "listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"controller\" password=\"" + controllerPassword + "\" user_controller=\""
                        + controllerPassword + "\";",
                "ssl.keystore.type=PKCS12",
                "ssl.keystore.location=" + dir.resolve("broker.p12"),
                "ssl.keystore.password=" + STORE_PASSWORD,
                "ssl.truststore.type=PKCS12",
                "ssl.truststore.location=" + truststore(),
                "ssl.truststore.password=" + STORE_PASSWORD,
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found=false",
                "super.users=User:" + ADMIN + ";User:controller",
                "log.dirs=" + dir.resolve("data").toAbsolutePath(),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "group.initial.rebalance.delay.ms=0",
                "metadata.max.idle.interval.ms=60000", // as KafkaBroker: no no-op record every 500 ms
                "auto.create.topics.enable=false",
                ""));
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
                // every refusal, so a failing case shows which ACL was missing
                "logger.authorizer.name=kafka.authorizer.logger",
                "logger.authorizer.level=INFO",
                ""));
        List<String> java = List.of(KafkaBroker.javaBin(), "-Xms128m", "-Xmx384m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(), "-cp", classpath);
        List<String> format = new ArrayList<>(java);
        format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", org.apache.kafka.common.Uuid.randomUuid().toString(),
                "-c", props.toString(), "--add-scram", MECHANISM + "=[name=" + ADMIN + ",password=" + adminPassword + "]"));
        await("kafka-format", format, start("kafka-format", format, logDir), logDir);
        await("keytool", List.of("keytool"), keytool, logDir);
        writeTruststore();
        List<String> run = new ArrayList<>(java);
        run.addAll(1, ClassDataArchive.forClasspath("kafka", classpath));
        run.addAll(List.of("kafka.Kafka", props.toString()));
        process = ChildProcess.start("kafka-secure", run, dir, logDir, Map.of());
        process.awaitReady(this::createTopics, ChildProcess.START_BOUND);
        return process;
    }

    void stop() {
        if (process != null) {
            process.stop(Duration.ofSeconds(10));
        }
    }

    /** Starts the JDK's keytool making a self-signed certificate for 127.0.0.1 (the only JDK tool that can). */
    private Process startKeytool(Path logDir) throws IOException {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        return start("keytool", List.of(keytool, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-genkeypair",
                "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-keystore", dir.resolve("broker.p12").toString(),
                "-storetype", "PKCS12", "-storepass", STORE_PASSWORD), logDir);
    }

    /** The clients' truststore: the broker's certificate alone, as the cluster CA's ca.p12 in Kubernetes. */
    private void writeTruststore() throws IOException {
        try (var in = Files.newInputStream(dir.resolve("broker.p12"));
             var out = Files.newOutputStream(truststore())) {
            KeyStore keystore = KeyStore.getInstance("PKCS12");
            keystore.load(in, STORE_PASSWORD.toCharArray());
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("broker", keystore.getCertificate("broker"));
            trust.store(out, STORE_PASSWORD.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new FleetException("could not write the truststore: " + e.getMessage(), e);
        }
    }

    private static Process start(String name, List<String> command, Path logDir) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve(name + ".log").toFile())).start();
    }

    private static void await(String name, List<String> command, Process p, Path logDir) {
        try {
            if (!p.waitFor(ChildProcess.START_BOUND.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new FleetException(name + " failed: " + String.join(" ", command.subList(0, Math.min(3, command.size())))
                        + "; see " + logDir.resolve(name + ".log"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetException("interrupted while running " + name);
        }
    }

    /** Creates the contracts' topics as the super user; false while the broker is not answering yet. */
    private boolean createTopics() {
        try (Admin admin = Admin.create(adminConfig())) {
            List<NewTopic> topics = new ArrayList<>();
            for (Topics.TopicSpec spec : Topics.ALL) {
                topics.add(new NewTopic(spec.name(), 1, (short) 1).configs(Map.of("cleanup.policy", spec.cleanupPolicy())));
            }
            for (var f : admin.createTopics(topics).values().values()) {
                try {
                    f.get(10, TimeUnit.SECONDS);
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
}
