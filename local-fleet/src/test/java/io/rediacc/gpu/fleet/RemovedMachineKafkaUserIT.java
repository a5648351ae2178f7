package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.contracts.kafka.KafkaAcls;
import io.rediacc.gpu.contracts.kafka.MachineKafkaEnv;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 31: a removed machine's Kafka user goes even when inventory-service was down when the machine was removed
 * ({@code rdc machine remove}'s DELETE .../kafka-user then fails). inventory-service deletes it when it reads the
 * removal's signed tombstone, and retries while the broker's admin API refuses, counting what is left on
 * {@code inventory_kafka_users_removals_pending}. A real broker secured as the local fleet's (SCRAM-SHA-512, ACLs on),
 * the real inventory-service jar, a real PostgreSQL.
 */
class RemovedMachineKafkaUserIT {

    static final Path REPO = DeploymentFilesTest.REPO;
    static final Path STATE = Path.of("target/removed-machine-kafka-user").toAbsolutePath();
    static final String MACHINE = "removed-while-down";
    static final String OPERATOR_TOKEN = "removed-machine-operator-" + UUID.randomUUID();
    static final Duration WAIT = Duration.ofSeconds(60);

    static KafkaBroker kafka;
    static ChildProcess broker;
    static FleetPostgres postgres;
    static String database;
    static String inventoryKafka;
    static String userAdminKafka;
    static Path serviceKey;
    static ChildProcess inventory;
    static int apiPort;
    static int metricsPort;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void startBrokerAndDatabase() throws Exception {
        if (Files.exists(STATE)) {
            try (var paths = Files.walk(STATE)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(STATE.resolve("logs"));
        kafka = new KafkaBroker(STATE.resolve("kafka"), FleetPorts.pick(), FleetPorts.pick(),
                REPO.resolve("local-fleet/target/lib").toAbsolutePath() + "/*");
        broker = kafka.start(STATE.resolve("logs"));
        inventoryKafka = kafka.ensureUser(KafkaAccess.INVENTORY_SERVICE, KafkaAccess.Role.INVENTORY_SERVICE, null);
        userAdminKafka = kafka.ensureUserAdmin();
        postgres = FleetPostgres.open(STATE.resolve("postgres"));
        database = "removed_user_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        postgres.ensureDatabase(database);
        // grant-service's signing key: only it may sign a removal's tombstone; inventory-service gets the public half
        serviceKey = STATE.resolve("grant-service-signing-key.pem");
        KeyPairFile.ensure(serviceKey);
    }

    @AfterAll
    static void stopAll() {
        if (inventory != null) {
            inventory.stop(Duration.ofSeconds(10));
        }
        if (broker != null) {
            broker.stop(Duration.ofSeconds(10));
        }
        if (postgres != null) {
            postgres.dropDatabase(database);
            try {
                postgres.close();
            } catch (Exception e) {
                System.err.println("closing PostgreSQL: " + e.getMessage());
            }
        }
    }

    @Test
    void aMachineRemovedWhileInventoryServiceWasDownLosesItsKafkaUserOnceTheBrokerLetsIt() throws Exception {
        if (inventory == null || !inventory.alive()) {
            startInventoryService();
        }
        String principal = KafkaAccess.machinePrincipal(MACHINE);
        String password = MachineKafkaEnv.newPassword();
        // rdc machine setup's "kafka user:" step
        HttpResponse<String> made = HTTP.send(HttpRequest.newBuilder(api("/api/v1/machines/" + MACHINE + "/kafka-user"))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"password\":\"" + password + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
        kafka.awaitLogin(principal, password);

        // inventory-service is down when the machine is removed (rdc machine remove's DELETE .../kafka-user fails), and
        // the broker's admin API refuses its user admin when it comes back
        inventory.stop(Duration.ofSeconds(20));
        try (Admin admin = Admin.create(kafka.adminConfig())) {
            admin.deleteAcls(java.util.List.of(userAdminAcls())).all().get(30, TimeUnit.SECONDS);
        }
        try {
            publishRemoval(MACHINE);
            startInventoryService();

            await("the deletion is pending while the broker refuses it").atMost(WAIT).pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions().until(() -> pendingRemovals() == 1);
            assertThat(loginFailure(principal, password)).as("the user stays until the broker lets it be deleted").isNull();
        } finally { // the broker lets the user admin act again (the other test needs it too)
            try (Admin admin = Admin.create(kafka.adminConfig())) {
                KafkaAcls.ensureAcls(admin, KafkaBroker.USER_ADMIN, KafkaAcls.userAdminBindings(KafkaBroker.USER_ADMIN),
                        Duration.ofSeconds(30));
            }
        }
        long t0 = System.nanoTime();
        await("the removed machine's login is refused").atMost(WAIT).pollInterval(Duration.ofMillis(500))
                .until(() -> loginFailure(principal, password) instanceof SaslAuthenticationException);
        System.out.printf("FIGURE removed-machine-kafka-user: login refused %.1f s after the broker let the user admin act%n",
                (System.nanoTime() - t0) / 1e9);
        await("nothing is left pending").atMost(WAIT).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> pendingRemovals() == 0);
    }

    /**
     * A deletion still pending from an earlier removal (the broker refused it so far) must not delete the user the
     * machine gets when it rejoins: rdc machine setup's PUT .../kafka-user cancels it, under the machine's user lock.
     */
    @Test
    void aMachineThatRejoinsKeepsItsNewUserThoughItsOldRemovalsDeletionWasPending() throws Exception {
        if (inventory == null || !inventory.alive()) {
            startInventoryService();
        }
        String machine = "rejoined-while-pending";
        String principal = KafkaAccess.machinePrincipal(machine);
        var pg = postgres.credentials();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(pg.jdbcUrl(database), pg.user(), pg.password());
             var pending = c.prepareStatement("insert into kafka_user_removals (machine, removed_at, next_attempt_at)"
                     + " values (?, now() - interval '1 hour', now() + interval '4 seconds')")) {
            pending.setString(1, machine);
            pending.executeUpdate();
        }
        String password = MachineKafkaEnv.newPassword();
        HttpResponse<String> made = HTTP.send(HttpRequest.newBuilder(api("/api/v1/machines/" + machine + "/kafka-user"))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"password\":\"" + password + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(made.statusCode()).as(made.body()).isEqualTo(200);
        kafka.awaitLogin(principal, password);
        // past the time the old deletion was due, and a few of the service's looks at it: the new user stays
        await("the rejoined machine keeps logging in").during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).until(() -> loginFailure(principal, password) == null);
    }

    static void startInventoryService() throws Exception {
        // fresh ports at every start: the test reads apiPort, nothing keeps the old address (the restart that failed to
        // bind in CI had its old port, from the ephemeral range, taken by another JVM's connection: FleetPorts explains)
        apiPort = FleetPorts.pick();
        metricsPort = FleetPorts.pick();
        var pg = postgres.credentials();
        Map<String, Object> config = new LinkedHashMap<>(Map.of(
                "quarkus.http.port", apiPort,
                "quarkus.management.port", metricsPort,
                "quarkus.datasource.reactive.url", pg.reactiveUrl(database),
                "quarkus.datasource.username", pg.user(),
                "quarkus.datasource.password", pg.password(),
                "api.auth.mode", "tokens",
                "api.auth.tokens.operator.token", OPERATOR_TOKEN,
                "api.auth.tokens.operator.roles", "operator"));
        config.putAll(kafka.quarkusConfig(KafkaAccess.INVENTORY_SERVICE, inventoryKafka));
        config.put("inventory.kafka-users.enabled", true);
        config.put("inventory.kafka-users.admin-username", KafkaBroker.USER_ADMIN);
        config.put("inventory.kafka-users.admin-password", userAdminKafka);
        config.put("inventory.kafka-users.timeout", "5s");
        config.put("inventory.kafka-users.removal-check", "1s");
        config.put("inventory.kafka-users.removal-retry", "1s");
        config.put("inventory.kafka-users.removal-retry-max", "2s");
        config.put("inventory.signing.service-key", KeyPairFile.publicFileOf(serviceKey));
        inventory = Services.start("inventory-service", REPO, STATE.resolve("logs"), config);
        inventory.awaitHttpOk("http://127.0.0.1:" + apiPort + "/q/health/ready", ChildProcess.START_BOUND);
    }

    /** grant-service's removal path: a tombstone for the machine on gpu.inventory.v1, signed with its key. */
    static void publishRemoval(String machine) throws Exception {
        KeyPair key = KeyPairFile.read(serviceKey);
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.INVENTORY_TOPIC, "/grant-service", machine));
        new RecordSigner(key.getPrivate(), key.getPublic()).sign(Topics.INVENTORY, machine, headers, null);
        Map<String, Object> c = new HashMap<>(kafka.superUser());
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(c)) {
            ProducerRecord<String, byte[]> r = new ProducerRecord<>(Topics.INVENTORY, machine, null);
            headers.forEach((name, value) -> r.headers().add(name, value));
            p.send(r).get(30, TimeUnit.SECONDS);
        }
    }

    static AclBindingFilter userAdminAcls() {
        return new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter("User:" + KafkaBroker.USER_ADMIN,
                null, AclOperation.ANY, AclPermissionType.ANY));
    }

    /** What the broker answers the user logging in; null when it may. */
    static Throwable loginFailure(String user, String password) throws InterruptedException {
        Map<String, Object> c = kafka.clientConfig(user, password);
        c.put("request.timeout.ms", 5000);
        c.put("default.api.timeout.ms", 10000);
        try (Admin a = Admin.create(c)) {
            a.describeCluster().clusterId().get(15, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            return e;
        }
    }

    static double pendingRemovals() throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(l -> l.startsWith("inventory_kafka_users_removals_pending "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(' ') + 1).strip())).findFirst()
                .orElseThrow(() -> new AssertionError("inventory_kafka_users_removals_pending is not exported"));
    }

    static URI api(String path) {
        return URI.create("http://127.0.0.1:" + apiPort + path);
    }
}
