package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.contracts.kafka.KafkaAcls;
import io.rediacc.gpu.contracts.kafka.MachineKafkaEnv;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicExistsException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A real Apache Kafka broker (KRaft, combined broker and controller) run as a child process from
 * the {@code kafka_2.13} artifact on this module's classpath, with the product's topics created
 * with their real cleanup policies. Its data lives in {@code .fleet/kafka} and survives restarts.
 *
 * <p>Secured as production is (docs/SECURITY.md, "Kafka"): its client listener authenticates every
 * client with SCRAM-SHA-512 (SASL_PLAINTEXT: a loopback address; production adds TLS), ACLs are
 * enforced by {@code StandardAuthorizer} and nothing is allowed without one. The super user
 * {@code admin} (credential written at format time, kept in {@code admin.password}, 0600) creates the
 * topics and the users ({@link #ensureUser}), each with exactly its role's ACLs from contracts'
 * {@code KafkaAccess}. The controller listener uses SASL PLAIN with a user of its own, so no anonymous
 * principal is a super user anywhere.
 */
final class KafkaBroker {

    static final String ADMIN = "admin";
    /** The user inventory-service manages machines' users as (cluster Alter / AlterConfigs, nothing on topics). */
    static final String USER_ADMIN = "kafka-user-admin";
    static final String PROTOCOL = "SASL_PLAINTEXT";

    private final Path dir;
    private final int port;
    private final int controllerPort;
    private final String classpath;
    private ChildProcess process;
    private String adminPassword;
    private String controllerPassword;

    KafkaBroker(Path dir, int port, int controllerPort, String classpath) {
        this.dir = dir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.classpath = classpath;
    }

    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Client settings of a SCRAM user: bootstrap, SASL_PLAINTEXT, SCRAM-SHA-512, its JAAS line. */
    Map<String, Object> clientConfig(String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, PROTOCOL);
        c.put(SaslConfigs.SASL_MECHANISM, KafkaAccess.MECHANISM);
        c.put(SaslConfigs.SASL_JAAS_CONFIG, KafkaAccess.jaasConfig(user, password));
        return c;
    }

    /** The super user's login, for a test's harness that plays several machines or grant-service at once. */
    Map<String, Object> superUser() {
        return clientConfig(ADMIN, adminPassword);
    }

    /** The super user's client settings for an Admin client (topics, users). */
    Map<String, Object> adminConfig() {
        Map<String, Object> c = clientConfig(ADMIN, adminPassword);
        c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        return c;
    }

    /** A user's settings as a Quarkus application takes them: {@code kafka.*} (bootstrap, security). */
    Map<String, Object> quarkusConfig(String user, String password) {
        Map<String, Object> c = new LinkedHashMap<>();
        clientConfig(user, password).forEach((k, v) -> c.put("kafka." + k, v));
        return c;
    }

    /**
     * Creates (or updates) {@code principal} with a fresh password and exactly the ACLs of {@code role}
     * (contracts {@code KafkaAccess}), and waits until it can log in.
     *
     * @param machine the machine, for {@link KafkaAccess.Role#MACHINE}; else null
     * @return its password
     */
    String ensureUser(String principal, KafkaAccess.Role role, String machine) {
        String password = MachineKafkaEnv.newPassword();
        try (Admin admin = Admin.create(adminConfig())) {
            KafkaAcls.ensureUser(admin, principal, password, role, machine, null, Duration.ofSeconds(30));
        }
        awaitLogin(principal, password);
        return password;
    }

    /**
     * The user inventory-service creates and deletes machines' users as: {@code Alter}, {@code AlterConfigs},
     * {@code Describe} and {@code DescribeConfigs} on the cluster (SCRAM credentials, ACLs, quotas) and nothing
     * on any topic. Alter on the cluster can write any ACL: this login is as strong as the super user.
     */
    String ensureUserAdmin() {
        String password = MachineKafkaEnv.newPassword();
        try (Admin admin = Admin.create(adminConfig())) {
            KafkaAcls.ensureCredential(admin, USER_ADMIN, password, Duration.ofSeconds(30));
            KafkaAcls.ensureAcls(admin, USER_ADMIN, KafkaAcls.userAdminBindings(USER_ADMIN), Duration.ofSeconds(30));
        }
        awaitLogin(USER_ADMIN, password);
        return password;
    }

    /** SCRAM credentials reach the listener through the metadata log: a moment after they were written. */
    void awaitLogin(String user, String password) {
        Map<String, Object> c = clientConfig(user, password);
        c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try (Admin a = Admin.create(c)) {
                a.describeCluster().clusterId().get(5, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new FleetException("Kafka user " + user + " cannot log in: " + e.getMessage());
                }
                ChildProcess.sleep(200);
            }
        }
    }

    ChildProcess start(Path logDir) throws IOException {
        Files.createDirectories(dir);
        Path passwordFile = dir.resolve("admin.password");
        if (Files.exists(dir.resolve("data/meta.properties")) && !Files.exists(passwordFile)) {
            // a broker of an older fleet, without authentication: its topics go (grant-service re-publishes snapshots)
            Fleet.say("kafka        the broker's data predates its users and ACLs: formatting it again");
            try (var paths = Files.walk(dir.resolve("data"))) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        if (!Files.exists(passwordFile)) {
            Files.writeString(passwordFile, "admin=" + MachineKafkaEnv.newPassword() + "\ncontroller=" + MachineKafkaEnv.newPassword() + "\n");
            Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-------"));
        }
        for (String line : Files.readAllLines(passwordFile)) {
            if (line.startsWith("admin=")) {
                adminPassword = line.substring("admin=".length()).strip();
            } else if (line.startsWith("controller=")) {
                controllerPassword = line.substring("controller=".length()).strip();
            }
        }
        Path props = dir.resolve("server.properties");
        Files.writeString(props, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=CLIENT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=CLIENT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
                "inter.broker.listener.name=CLIENT",
                // clients and the broker itself: SCRAM-SHA-512, as the production cluster's listener
                "listener.name.client.sasl.enabled.mechanisms=" + KafkaAccess.MECHANISM,
                "sasl.mechanism.inter.broker.protocol=" + KafkaAccess.MECHANISM,
                "listener.name.client.scram-sha-512.sasl.jaas.config=" + KafkaAccess.jaasConfig(ADMIN, adminPassword),
                // KRaft controllers cannot authenticate with SCRAM (its credentials live in the metadata they serve)
                "listener.name.controller.sasl.enabled.mechanisms=PLAIN",
                "sasl.mechanism.controller.protocol=PLAIN",
                "listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                        + " username=\"controller\" password=\"" + controllerPassword + "\" user_controller=\""
                        + controllerPassword + "\";",
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "allow.everyone.if.no.acl.found=false",
                "super.users=User:" + ADMIN + ";User:controller",
                // a deleted user's open connections must re-authenticate within a minute (a removed machine stops)
                "connections.max.reauth.ms=60000",
                "log.dirs=" + dir.resolve("data").toAbsolutePath(),
                "num.partitions=4",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                "log.cleaner.backoff.ms=5000",
                // the controller's no-op record every 500 ms (KIP-835; an idle broker: 1.55 -> 1.05 s of CPU a minute)
                "metadata.max.idle.interval.ms=60000",
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
                // every refusal, with its principal: which machine tried what
                "logger.authorizer.name=kafka.authorizer.logger",
                "logger.authorizer.level=INFO",
                "logger.authorizer.additivity=false",
                "logger.authorizer.appenderRef.out.ref=out",
                ""));
        // C1 only and the serial collector, as the fleet's services (Services): a local broker serves a handful of
        // clients, and C2's and G1's threads cost more CPU than they give back (formatting 3.0 -> 1.4 s of CPU, the
        // broker's first minutes 9.8 -> 6.1 s), on CI's 2 cores that every test shares
        List<String> java = List.of(javaBin(), "-Xms256m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(), "-cp", classpath);
        if (!Files.exists(dir.resolve("data/meta.properties"))) {
            List<String> format = new ArrayList<>(java);
            format.addAll(1, ClassDataArchive.forClasspath("kafka-storage-tool", classpath));
            format.addAll(List.of("kafka.tools.StorageTool", "format", "-t", clusterId(), "-c", props.toString(),
                    "--add-scram", KafkaAccess.MECHANISM + "=[name=" + ADMIN + ",password=" + adminPassword + "]"));
            Process p = new ProcessBuilder(format).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("kafka-format.log").toFile())).start();
            try {
                boolean ended = p.waitFor(ChildProcess.START_BOUND.toSeconds(), TimeUnit.SECONDS);
                if (ended) {
                    ClassDataArchive.exited(format, p.exitValue());
                }
                if (!ended || p.exitValue() != 0) {
                    throw new FleetException("formatting Kafka's storage failed; see " + logDir.resolve("kafka-format.log"));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FleetException("interrupted while formatting Kafka's storage");
            }
        }
        List<String> run = new ArrayList<>(java);
        run.addAll(1, ClassDataArchive.forClasspath("kafka", classpath));
        run.addAll(List.of("kafka.Kafka", props.toString()));
        process = ChildProcess.start("kafka", run, dir, logDir, Map.of());
        process.awaitReady(this::createTopics, ChildProcess.START_BOUND);
        return process;
    }

    private String clusterId() throws IOException {
        Path idFile = dir.resolve("cluster.id");
        if (!Files.exists(idFile) || !Files.exists(dir.resolve("data/meta.properties"))) {
            // a Kafka cluster id is a base64 UUID; Kafka's own Uuid keeps the format exact
            Files.writeString(idFile, org.apache.kafka.common.Uuid.randomUuid().toString());
        }
        return Files.readString(idFile).trim();
    }

    /** Creates the product's topics (idempotent) as the super user; false while the broker is not answering yet. */
    private boolean createTopics() {
        Map<String, Object> c = adminConfig();
        c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000);
        try (Admin admin = Admin.create(c)) {
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
