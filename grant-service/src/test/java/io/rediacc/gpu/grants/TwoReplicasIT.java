package io.rediacc.gpu.grants;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.grants.testing.Database;
import io.rediacc.gpu.grants.testing.FakeGate;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.Replica;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.EmbeddedKafka;
import io.rediacc.gpu.testsupport.LocalPostgres;
import io.rediacc.gpu.testsupport.TcpProxy;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two running instances of the packaged service sharing one database and one Kafka: the exclusive
 * rule holds across replicas because the check runs under the machine's advisory lock. Replica B
 * reaches PostgreSQL through a proxy, so the last test can take the database away from it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoReplicasIT {

    private static final int REQUESTS = 50;

    private static EmbeddedKafka kafka;
    private static LocalPostgres db;
    private static TcpProxy dbProxyOfB;
    private static Replica a;
    private static Replica b;
    private static Fleet fleet;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void startTwoReplicas() throws Exception {
        kafka = EmbeddedKafka.start();
        db = LocalPostgres.createDatabase();
        dbProxyOfB = new TcpProxy(0, db.host(), db.port()); // binds a free port itself: no race with other JVMs
        fleet = new Fleet(kafka.bootstrapServers());
        // the first consumer group makes the broker create its offsets topic: do it while the replicas boot
        CompletableFuture<Void> warmUp = CompletableFuture.runAsync(() -> TopicReader.joinGroup(kafka.bootstrapServers()));
        // both start at once on an empty database: schema creation must not race
        a = Replica.start("replica-a", config("a", db.reactiveUrl()));
        b = Replica.start("replica-b", config("b", "postgresql://127.0.0.1:" + dbProxyOfB.port() + "/" + db.database()));
        a.awaitReady(Duration.ofSeconds(120));
        b.awaitReady(Duration.ofSeconds(120));
        warmUp.join();
        Fleet.registerWith(a.baseUri()); // machine keys go to the replicas' database
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (AutoCloseable c : new AutoCloseable[]{a, b, fleet, dbProxyOfB, kafka, db}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private static Map<String, String> config(String replica, String dbUrl) {
        return Map.ofEntries(
                Map.entry("quarkus.datasource.reactive.url", dbUrl),
                Map.entry("quarkus.datasource.username", db.user()),
                Map.entry("quarkus.datasource.password", db.password()),
                // one key pair for both replicas, as production gives them (creation is race-free)
                Map.entry("grants.signing.key-file", "target/" + db.database() + "-signing-key.pem"),
                Map.entry("grants.signing.create-if-missing", "true"),
                Map.entry("kafka.bootstrap.servers", kafka.bootstrapServers()),
                // the replicas share one inventory consumer group, as in production
                Map.entry("mp.messaging.incoming.inventory.group.id", "grant-service-inventory-" + db.database()),
                Map.entry("grants.event-source", "/grant-service/replica-" + replica),
                // the test is about mutual exclusion, not latency: a slow CI machine must not turn 409s into 503s
                Map.entry("grants.lock-timeout", "30s"),
                // fifty writes at once from one operator, test after test: about mutual exclusion, not the rate limit
                Map.entry("api.rate-limit.enabled", "false"),
                // the packaged application's default is fail-closed tokens mode: give the test's operator a token
                Map.entry("api.auth.tokens.test-operator.token", GrantApi.OPERATOR_TOKEN),
                Map.entry("api.auth.tokens.test-operator.roles", "operator"),
                Map.entry("quarkus.log.category.\"org.apache.kafka\".level", "WARN"),
                // CI's four test lanes share one PostgreSQL (max_connections 100): each replica's 25 concurrent writes
                // serialize on the machine's lock anyway, so 10 connections (not the production 20) lose nothing, and
                // Flyway's JDBC connections go once idle
                Map.entry("quarkus.datasource.reactive.max-size", "10"),
                Map.entry("quarkus.datasource.jdbc.idle-removal-interval", "10S"));
    }

    @Test
    @Order(1)
    void fiftyConcurrentExclusiveGrantsAcrossTwoReplicasHaveExactlyOneWinner() throws Exception {
        List<RepoInfo> repos = repos(REQUESTS);
        String machine = machineWith(repos);
        try (FakeGate gate = FakeGate.start(kafka.bootstrapServers(), machine, "gate-1")) {
            awaitLiveGate(machine);

            List<HttpResponse<String>> answers = concurrently(repos, machine, i -> true, "nvidia.com/gpu=0", "10s");

            Map<Integer, Long> byStatus = answers.stream().collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
            assertThat(byStatus).as(byStatus.toString()).isEqualTo(Map.of(201, 1L, 409, (long) REQUESTS - 1));
            HttpResponse<String> winner = answers.stream().filter(r -> r.statusCode() == 201).findFirst().orElseThrow();
            String winnerGuid = json(winner).path("repoGuid").asText();
            assertThat(json(winner).path("enforced").asBoolean()).isTrue();
            for (HttpResponse<String> loser : answers) {
                if (loser.statusCode() == 409) {
                    assertThat(json(loser).path("holders").get(0).path("repoGuid").asText()).isEqualTo(winnerGuid);
                }
            }
            try (Connection c = db.connect()) {
                Database database = new Database(c);
                Set<Grant> inDb = database.grants(machine);
                assertThat(inDb).extracting(Grant::repoGuid).containsExactly(winnerGuid);
                assertThat(database.version(machine)).isEqualTo(1);
                assertThat(Set.copyOf(latestSnapshot(machine, 1).grants())).isEqualTo(inDb);
            }
            List<GrantEvent> audit = TopicReader.readUntil(kafka.bootstrapServers(), Topics.GRANT_EVENTS, machine,
                            read -> read.size() >= REQUESTS, Duration.ofSeconds(30)).stream()
                    .map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();
            assertThat(audit.stream().filter(e -> e.type() == GrantEvent.Type.REFUSED)).hasSize(REQUESTS - 1);
            assertThat(audit.stream().filter(e -> e.type() == GrantEvent.Type.GRANTED)).hasSize(1);
            assertThat(gate.appliedVersion()).isEqualTo(1);
        }
    }

    @Test
    @Order(2)
    void mixOfExclusiveAndSharedGrantsAcrossTwoReplicasStaysConsistent() throws Exception {
        List<RepoInfo> repos = repos(REQUESTS);
        String machine = machineWith(repos);

        // every third asks for an exclusive reservation, the others share
        List<HttpResponse<String>> answers = concurrently(repos, machine, i -> i % 3 == 0, "nvidia.com/gpu=1", "0");

        List<HttpResponse<String>> granted = answers.stream().filter(r -> r.statusCode() == 202).toList();
        long refused = answers.stream().filter(r -> r.statusCode() == 409).count();
        assertThat(granted.size() + refused).as("only 202 (recorded, wait=0) and 409").isEqualTo(REQUESTS);
        assertThat(granted).isNotEmpty();
        boolean exclusiveWon = granted.stream().anyMatch(r -> json(r).path("exclusive").asBoolean());
        try (Connection c = db.connect()) {
            Database database = new Database(c);
            Set<Grant> inDb = database.grants(machine);
            if (exclusiveWon) {
                assertThat(granted).hasSize(1);
                assertThat(inDb).singleElement().extracting(Grant::exclusive).isEqualTo(true);
            } else {
                assertThat(inDb).hasSize(granted.size()).noneMatch(Grant::exclusive);
            }
            assertThat(database.version(machine)).isEqualTo(granted.size());
            assertThat(Set.copyOf(latestSnapshot(machine, granted.size()).grants())).isEqualTo(inDb);
        }
    }

    @Test
    @Order(3)
    void databaseDownIs503WithJsonNotAStackTrace() throws Exception {
        List<RepoInfo> repos = repos(1);
        String machine = machineWith(repos);
        GrantApi viaB = new GrantApi(b.baseUri());
        dbProxyOfB.disconnect();
        try {
            var response = viaB.grant(repos.get(0).name() + "@" + machine, "nvidia.com/gpu=0", false, "0");
            assertThat(response.statusCode()).as(response.asString()).isEqualTo(503);
            assertThat(response.<String>path("error")).isEqualTo("database-unavailable");
            assertThat(response.<String>path("hint")).contains("retry");
            assertThat(response.asString()).doesNotContain("\tat ", "Exception:");
        } finally {
            dbProxyOfB.reconnect();
        }
        // and B recovers by itself once the database is back
        Instant deadline = Instant.now().plusSeconds(30);
        int status;
        do {
            status = viaB.grant(repos.get(0).name() + "@" + machine, "nvidia.com/gpu=0", false, "0").statusCode();
        } while (status == 503 && Instant.now().isBefore(deadline));
        assertThat(status).isEqualTo(202);
    }

    private static List<RepoInfo> repos(int count) {
        List<RepoInfo> repos = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            repos.add(Fleet.repo(String.format("repo-%02d", i)));
        }
        return repos;
    }

    /** Publishes a machine with these repos and waits until both replicas know it. */
    private static String machineWith(List<RepoInfo> repos) {
        String machine = Fleet.uniqueMachine("race");
        fleet.publishInventory(Fleet.inventory(machine, Fleet.TWO_NVIDIA_GPUS, repos));
        new GrantApi(a.baseUri()).awaitMachine(machine);
        new GrantApi(b.baseUri()).awaitMachine(machine);
        return machine;
    }

    private static void awaitLiveGate(String machine) throws InterruptedException {
        for (Replica replica : List.of(a, b)) {
            GrantApi api = new GrantApi(replica.baseUri());
            await(replica.name() + " sees the gate").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> api.machineGrants(machine).<List<Boolean>>path("gates.live").contains(true));
        }
    }

    /** Sends one grant per repo at the same moment, alternating between the two replicas. */
    private static List<HttpResponse<String>> concurrently(List<RepoInfo> repos, String machine,
                                                           java.util.function.IntPredicate exclusive, String device,
                                                           String wait) {
        List<HttpRequest> requests = new ArrayList<>();
        for (int i = 0; i < repos.size(); i++) {
            Replica target = i % 2 == 0 ? a : b;
            String body = "{\"device\": \"" + device + "\", \"exclusive\": " + exclusive.test(i) + "}";
            requests.add(HttpRequest.newBuilder(URI.create(target.baseUri() + "/api/v1/repos/" + repos.get(i).name()
                            + "@" + machine + "/grants?wait=" + wait))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + GrantApi.OPERATOR_TOKEN)
                    .timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        }
        List<CompletableFuture<HttpResponse<String>>> inFlight = requests.stream()
                .map(r -> HTTP.sendAsync(r, HttpResponse.BodyHandlers.ofString())).toList();
        return inFlight.stream().map(CompletableFuture::join).toList();
    }

    /** The machine's snapshot of the given version, read from gpu.grants.v1 as a gate would. */
    private static GrantSnapshot latestSnapshot(String machine, long version) {
        List<ConsumerRecord<String, byte[]>> records = TopicReader.readUntil(kafka.bootstrapServers(), Topics.GRANTS,
                machine, read -> read.stream().anyMatch(r -> EventJson.fromBytes(r.value(), GrantSnapshot.class).version() == version),
                Duration.ofSeconds(30));
        GrantSnapshot latest = EventJson.fromBytes(records.get(records.size() - 1).value(), GrantSnapshot.class);
        assertThat(latest.version()).isEqualTo(version);
        return latest;
    }

    private static com.fasterxml.jackson.databind.JsonNode json(HttpResponse<String> response) {
        try {
            return EventJson.mapper().readTree(response.body());
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + response.body(), e);
        }
    }
}
