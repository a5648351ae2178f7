package io.rediacc.gpu.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Faults across processes: a real Kafka broker (child process) that is really stopped, a private
 * PostgreSQL cluster that is really stopped, and the packaged grant-service killed with SIGKILL.
 * Nothing acknowledged is lost, the published snapshots converge to the database, the gates'
 * state equals the database after recovery. Each test prints its figures as {@code FIGURE ...}
 * lines (docs/RELIABILITY.md quotes them). Sizes: {@code -Dfaults.ops}, {@code -Dfaults.outage}
 * (seconds), {@code -Dfaults.machines} (CI defaults are smaller than the issue's 1,000 / 30 s).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultsIT {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path STATE = Path.of("target/faults").toAbsolutePath();
    static final List<String> DEVICES = List.of("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all",
            "rediacc.io/dri=renderD128");
    static final int OPS = Integer.getInteger("faults.ops", 200);
    static final int OUTAGE_SECONDS = Integer.getInteger("faults.outage", 10);
    static final int MACHINES = Integer.getInteger("faults.machines", 20);

    static KafkaBroker kafka;
    static ChildProcess broker;
    static String grantServiceKafka;
    static PrivatePostgres pg;
    static ChildProcess grantService;
    static int grantPort;
    static KafkaProducer<String, byte[]> producer;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final List<String> figures = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void startFleet() throws Exception {
        Path bin = PrivatePostgres.installedBin();
        Assumptions.assumeTrue(bin != null, "no PostgreSQL server binaries under /usr/lib/postgresql");
        if (Files.exists(STATE)) {
            try (var paths = Files.walk(STATE)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(STATE.resolve("logs"));
        // the broker keeps its ports across the tests' restarts (kafka.start again): grant-service's and this test's
        // clients keep its bootstrap address; FleetPorts' range keeps another process's connection off them meanwhile
        kafka = new KafkaBroker(STATE.resolve("kafka"), FleetPorts.pick(), FleetPorts.pick(),
                REPO.resolve("local-fleet/target/lib").toAbsolutePath() + "/*");
        broker = kafka.start(STATE.resolve("logs"));
        grantServiceKafka = kafka.ensureUser(io.rediacc.gpu.contracts.kafka.KafkaAccess.GRANT_SERVICE,
                io.rediacc.gpu.contracts.kafka.KafkaAccess.Role.GRANT_SERVICE, null);
        pg = PrivatePostgres.create(bin);
        pg.createDatabase("grants");
        grantService = startGrantServiceOnAFreePort();
        producer = ModelGates.producer(kafka.superUser(), 15_000);
    }

    @AfterAll
    static void stopFleet() throws Exception {
        figures.forEach(System.out::println);
        Files.write(STATE.resolve("figures.txt"), figures);
        if (producer != null) {
            producer.close(Duration.ofSeconds(2));
        }
        if (grantService != null) {
            grantService.stop(Duration.ofSeconds(10));
        }
        if (broker != null) {
            broker.stop(Duration.ofSeconds(20));
        }
        if (pg != null) {
            pg.close();
        }
    }

    static ChildProcess startGrantService() throws Exception {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("quarkus.http.port", grantPort);
        config.put("quarkus.management.port", FleetPorts.pick()); // /q/metrics
        // grant-service logs in as itself, with exactly its ACLs (contracts KafkaAccess), as in the fleet and production
        config.putAll(kafka.quarkusConfig(io.rediacc.gpu.contracts.kafka.KafkaAccess.GRANT_SERVICE, grantServiceKafka));
        config.put("quarkus.datasource.reactive.url", pg.reactiveUrl("grants"));
        config.put("quarkus.datasource.username", "postgres");
        config.put("quarkus.datasource.password", "");
        // a group of its own per start: a SIGKILLed member would hold the partitions for a session timeout
        config.put("mp.messaging.incoming.inventory.group.id", "grant-service-inventory-faults-" + shortId());
        // a slow CI machine must not turn answers into machine-busy 503s
        config.put("grants.lock-timeout", "20s");
        // hundreds of grants in seconds from one caller: about faults, not about the write rate limit
        config.put("api.rate-limit.enabled", "false");
        // grant-service's signing key, the same across the test's restarts
        config.put("grants.signing.key-file", STATE.resolve("grant-service-signing-key.pem"));
        config.put("grants.signing.create-if-missing", "true");
        List<String> command = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(ClassDataArchive.forQuarkusApp("grant-service", REPO.resolve("grant-service/target/quarkus-app/quarkus-run.jar")));
        command.addAll(List.of("-jar", REPO.resolve("grant-service/target/quarkus-app/quarkus-run.jar").toString()));
        // these tests are about faults, not about who may call: no authentication (an environment
        // variable, so that a build without the setting ignores it)
        ChildProcess p = ChildProcess.start("grant-service", command, REPO, STATE.resolve("logs"), Map.of("API_AUTH_MODE", "none"));
        p.awaitHttpOk(base() + "/q/health/ready", ChildProcess.START_BOUND);
        return p;
    }

    /**
     * Starts grant-service on a fresh port (a restart needs none of its old ones: the test reads {@link #grantPort}),
     * again on another one when a parallel build's listener took it between the pick and the bind.
     */
    static ChildProcess startGrantServiceOnAFreePort() throws Exception {
        for (int attempt = 1; ; attempt++) {
            grantPort = FleetPorts.pick();
            try {
                return startGrantService();
            } catch (FleetException e) {
                if (attempt >= 3 || !e.getMessage().contains("in use")) {
                    throw e;
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void aChangeCommittedBeforeAKill9IsPublishedAfterTheRestartAndTheRebuiltStateEqualsTheDatabase() throws Exception {
        String machine = "kill9-" + shortId();
        List<RepoInfo> repos = repos(4);
        publishInventory(machine, repos);
        awaitMachine(machine);

        // the broker goes away: commits succeed, their outbox rows cannot be relayed
        broker.stop(Duration.ofSeconds(20));
        int committed = 0;
        for (RepoInfo repo : repos) {
            HttpResponse<String> r = grant(repo, machine, "nvidia.com/gpu=0", false, "0");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            committed++;
        }
        HttpResponse<String> revoke = revoke(repos.get(0), machine, "nvidia.com/gpu=0", "0");
        assertThat(revoke.statusCode()).as(revoke.body()).isEqualTo(202);
        committed++;
        long pendingAtKill = outboxRows(machine);
        assertThat(pendingAtKill).as("committed changes wait in the outbox").isGreaterThanOrEqualTo(1);

        // kill -9 between the commit and the publish
        ProcessHandle.of(grantService.pid()).orElseThrow().destroyForcibly();
        ProcessHandle.of(grantService.pid()).ifPresent(h -> h.onExit().join());
        broker = kafka.start(STATE.resolve("logs"));
        assertThat(latestSnapshots(Duration.ofSeconds(3)).get(machine)).as("nothing was published before the kill").isNull();

        Instant restart = Instant.now();
        grantService = startGrantServiceOnAFreePort();
        await("the new instance relays the dead one's outbox").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(() -> outboxRows(machine) == 0);
        long publishedAfterMs = Duration.between(restart, Instant.now()).toMillis();
        assertThat(outboxRows(machine)).as("the new instance relays the dead one's outbox").isZero();

        GrantSnapshot rebuilt = latestSnapshots(Duration.ofSeconds(20)).get(machine);
        assertThat(rebuilt).as("a consumer rebuilding from gpu.grants.v1 sees the machine").isNotNull();
        assertThat(rebuilt.version()).isEqualTo(dbVersion(machine));
        assertThat(keys(rebuilt.grants())).isEqualTo(dbGrants(machine)).hasSize(repos.size() - 1);
        figures.add("FIGURE kill9: " + committed + " changes committed with Kafka away, " + pendingAtKill
                + " outbox rows at kill -9; new instance ready and outbox empty " + publishedAfterMs
                + " ms after its start; rebuilt snapshot v" + rebuilt.version() + " = database (" + dbGrants(machine).size()
                + " grants), divergence 0");
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    @Order(2)
    void aKafkaOutageDuringRandomGrantsAndRevokesLeavesEveryGateEqualToTheDatabase() throws Exception {
        List<String> machines = new ArrayList<>();
        Map<String, List<RepoInfo>> reposOf = new HashMap<>();
        for (int i = 0; i < MACHINES; i++) {
            String m = String.format("outage-%02d-%s", i, shortId());
            machines.add(m);
            reposOf.put(m, repos(3));
            publishInventory(m, reposOf.get(m));
        }
        machines.forEach(FaultsIT::awaitMachine);

        try (ModelGates gates = new ModelGates(kafka.superUser(), Set.copyOf(machines))) {
            awaitLiveGates(machines.get(0));
            Map<Integer, AtomicInteger> before = new ConcurrentSkipListMap<>();
            Map<Integer, AtomicInteger> during = new ConcurrentSkipListMap<>();
            Map<Integer, AtomicInteger> after = new ConcurrentSkipListMap<>();
            AtomicLong slowestDuringMs = new AtomicLong();
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger next = new AtomicInteger();
            CountDownLatch outageOver = new CountDownLatch(1);
            CountDownLatch thirdDone = new CountDownLatch(OPS / 3);
            var phase = new java.util.concurrent.atomic.AtomicReference<>(before);

            ExecutorService workers = Executors.newFixedThreadPool(6);
            for (int w = 0; w < 6; w++) {
                long seed = 42 + w;
                workers.submit(() -> {
                    Random random = new Random(seed);
                    int op;
                    while ((op = next.getAndIncrement()) < OPS) {
                        if (op >= 2 * OPS / 3) {
                            outageOver.await(); // the last third runs after recovery
                        }
                        String m = machines.get(random.nextInt(machines.size()));
                        RepoInfo repo = reposOf.get(m).get(random.nextInt(3));
                        String device = DEVICES.get(random.nextInt(DEVICES.size()));
                        Map<Integer, AtomicInteger> counts = phase.get();
                        long t0 = System.nanoTime();
                        try {
                            HttpResponse<String> r = random.nextBoolean()
                                    ? grant(repo, m, device, random.nextInt(5) == 0, "1s")
                                    : revoke(repo, m, device, "1s");
                            counts.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                            if (r.statusCode() >= 500) {
                                failures.add(r.statusCode() + " " + r.body());
                            }
                        } catch (Exception e) {
                            failures.add("no answer: " + e);
                        }
                        if (counts == during) {
                            slowestDuringMs.accumulateAndGet((System.nanoTime() - t0) / 1_000_000, Math::max);
                        }
                        thirdDone.countDown();
                    }
                    return null;
                });
            }
            assertThat(thirdDone.await(5, TimeUnit.MINUTES)).isTrue();
            broker.stop(Duration.ofSeconds(20));
            phase.set(during);
            Instant down = Instant.now();
            // the outage's length, not a wait for a result: the clients keep calling while the broker is away
            Thread.sleep(OUTAGE_SECONDS * 1000L);
            phase.set(after);
            broker = kafka.start(STATE.resolve("logs"));
            long downMs = Duration.between(down, Instant.now()).toMillis();
            outageOver.countDown();
            workers.shutdown();
            assertThat(workers.awaitTermination(5, TimeUnit.MINUTES)).isTrue();
            Instant recovered = Instant.now();

            // The revoke that answered 500 and left the machine locked (then 503 machine-busy, unanswered
            // calls) was fixed in grant-service (revoke deletes by key with a row count): every call is
            // answered with a clear status now, any 5xx or unanswered call fails.
            assertThat(failures).as("the API answers every call with a clear status").isEmpty();
            assertThat(during.getOrDefault(202, new AtomicInteger()).get()).as("202 while gates cannot confirm").isPositive();
            assertThat(during.keySet()).isSubsetOf(200, 202, 404, 409);

            // every gate converges to the database
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                Map<String, Set<String>> divergent = new TreeMap<>();
                for (String m : machines) {
                    ModelGates.Held held = gates.held(m);
                    Set<String> db = dbGrants(m);
                    if (held.version() != dbVersion(m) || !keys(held.grants()).equals(db)) {
                        divergent.put(m, db);
                    }
                }
                assertThat(divergent).as("machines whose gate differs from the database after recovery").isEmpty();
            });
            long convergedMs = Duration.between(recovered, Instant.now()).toMillis();

            Map<String, GrantSnapshot> topic = latestSnapshots(Duration.ofSeconds(20));
            int topicDivergent = 0;
            int grantsInDb = 0;
            for (String m : machines) {
                grantsInDb += dbGrants(m).size();
                GrantSnapshot s = topic.get(m);
                if (dbVersion(m) > 0 && (s == null || !keys(s.grants()).equals(dbGrants(m)))) {
                    topicDivergent++;
                }
            }
            assertThat(topicDivergent).isZero();
            figures.add("FIGURE kafka-outage: " + OPS + " random grants/revokes over " + MACHINES + " machines, broker down "
                    + downMs + " ms (stopped " + OUTAGE_SECONDS + " s + restart); answers before " + counts(before)
                    + ", during " + counts(during) + ", after " + counts(after) + "; 5xx/no answer: " + failures.size()
                    + "; slowest answer during the outage " + slowestDuringMs.get() + " ms; all gates equal to the database "
                    + convergedMs + " ms after the last call; divergence gates 0/" + MACHINES
                    + ", topic " + topicDivergent + "/" + MACHINES + " (" + grantsInDb + " grants in the database)");
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    @Order(3)
    void postgresRestartedMidLoadGivesClear503sNoHalfWrittenGrantAndRecoversWithoutARestart() throws Exception {
        String machine = "pg-" + shortId();
        List<RepoInfo> repos = repos(400);
        publishInventory(machine, repos);
        awaitMachine(machine);
        long pid = grantService.pid();

        Map<String, Integer> answered = new ConcurrentHashMap<>(); // repo name → status
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        List<String> unclear = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        AtomicInteger okAfterRestart = new AtomicInteger();
        var restarted = new java.util.concurrent.atomic.AtomicReference<Instant>();
        var firstOkAfter = new java.util.concurrent.atomic.AtomicReference<Instant>();
        ExecutorService workers = Executors.newFixedThreadPool(3);
        for (int w = 0; w < 3; w++) {
            workers.submit(() -> {
                int i;
                while ((i = next.getAndIncrement()) < repos.size() && okAfterRestart.get() < 20) {
                    RepoInfo repo = repos.get(i);
                    HttpResponse<String> r = grant(repo, machine, "nvidia.com/gpu=0", false, "0");
                    answered.put(repo.name(), r.statusCode());
                    statuses.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                    if (r.statusCode() == 503) {
                        JsonNode body = EventJson.mapper().readTree(r.body());
                        if (!"database-unavailable".equals(body.path("error").asText())
                                || r.headers().firstValue("Retry-After").isEmpty() || r.body().contains("\tat ")) {
                            unclear.add(r.body());
                        }
                    } else if (r.statusCode() != 202) {
                        unclear.add(r.statusCode() + " " + r.body());
                    } else if (restarted.get() != null) {
                        firstOkAfter.compareAndSet(null, Instant.now());
                        okAfterRestart.incrementAndGet();
                    }
                    Thread.sleep(r.statusCode() == 503 ? 100 : 20); // a client backs off a little on 503
                }
                return null;
            });
        }
        await("40 grants sent before the database stops").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
                .until(() -> next.get() >= 40);
        pg.stop();
        Instant stopped = Instant.now();
        // down until the callers have seen it: 20 answers of 503, not a fixed time
        await("20 answers of 503 while the database is down").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(50))
                .until(() -> statuses.getOrDefault(503, new AtomicInteger()).get() >= 20);
        int answersWhileDown = statuses.getOrDefault(503, new AtomicInteger()).get();
        pg.start();
        restarted.set(Instant.now());
        long downMs = Duration.between(stopped, restarted.get()).toMillis();
        workers.shutdown();
        assertThat(workers.awaitTermination(3, TimeUnit.MINUTES)).isTrue();

        assertThat(unclear).as("every answer is 202 or a JSON 503 database-unavailable with Retry-After").isEmpty();
        assertThat(answersWhileDown).as("503s while the database is down").isPositive();
        assertThat(okAfterRestart.get()).as("the same instance recovers by itself").isGreaterThanOrEqualTo(20);
        assertThat(grantService.pid()).isEqualTo(pid);
        assertThat(grantService.alive()).isTrue();

        // no half-written grant: every acknowledged grant is there, the version counts every change,
        // and the published snapshot equals the database once the relay caught up
        Set<String> acknowledged = answered.entrySet().stream().filter(e -> e.getValue() == 202).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        Set<String> refused = answered.entrySet().stream().filter(e -> e.getValue() == 503).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        Set<String> inDb = dbRepoNames(machine);
        assertThat(inDb).containsAll(acknowledged);
        Set<String> refusedButWritten = new HashSet<>(refused);
        refusedButWritten.retainAll(inDb);
        assertThat(dbVersion(machine)).as("one version per committed grant").isEqualTo(inDb.size());
        await("the relay caught up").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> outboxRows(machine) == 0);
        GrantSnapshot published = latestSnapshots(Duration.ofSeconds(20)).get(machine);
        assertThat(published.version()).isEqualTo(dbVersion(machine));
        assertThat(keys(published.grants())).isEqualTo(dbGrants(machine));
        figures.add("FIGURE postgres-restart: database stopped (pg_ctl -m fast) for " + downMs + " ms under 3 concurrent callers; "
                + answered.size() + " grants sent: " + new TreeMap<>(statuses) + "; unclear answers " + unclear.size()
                + "; first 202 " + Duration.between(restarted.get(), firstOkAfter.get()).toMillis()
                + " ms after the database was back, same process (no restart); acknowledged but missing 0; refused but written "
                + refusedButWritten.size() + "; database version " + dbVersion(machine) + " = " + inDb.size()
                + " grants = published snapshot");
    }

    // ---------------------------------------------------------------------------------------------

    static String base() {
        return "http://127.0.0.1:" + grantPort;
    }

    static String shortId() {
        return UUID.randomUUID().toString().substring(0, 6);
    }

    static List<RepoInfo> repos(int count) {
        List<RepoInfo> repos = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            repos.add(new RepoInfo(String.format("repo-%03d", i), UUID.randomUUID().toString(), null));
        }
        return repos;
    }

    static void publishInventory(String machine, List<RepoInfo> repos) throws Exception {
        List<String> control = List.of("/dev/nvidiactl", "/dev/nvidia-uvm");
        List<MachineInventory.CdiDeviceInfo> cdi = List.of(
                new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=0", concat("/dev/nvidia0", control), "/etc/cdi/nvidia.yaml", "sha256:00"),
                new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=1", concat("/dev/nvidia1", control), "/etc/cdi/nvidia.yaml", "sha256:00"),
                new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=all", concat("/dev/nvidia0", concat("/dev/nvidia1", control)),
                        "/etc/cdi/nvidia.yaml", "sha256:00"),
                new MachineInventory.CdiDeviceInfo("rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"),
                        "/etc/cdi/rediacc-dri.yaml", "sha256:00"));
        MachineInventory inventory = new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, MachineInventory.PLATFORM_LOCAL,
                "faults", Instant.now(), List.of(), cdi, null, null, repos, List.of());
        SignedMachines.register(HTTP, base(), machine);
        producer.send(SignedMachines.record(Topics.INVENTORY, machine, machine, EventJson.toBytes(inventory))).get(15, TimeUnit.SECONDS);
    }

    static List<String> concat(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all;
    }

    static void awaitMachine(String machine) {
        await("grant-service to learn machine " + machine).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions() // starting
                .until(() -> get("/api/v1/machines/" + machine + "/grants").statusCode() == 200);
    }

    static void awaitLiveGates(String machine) throws Exception {
        await("the model gate of " + machine + " to show live").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    JsonNode body = EventJson.mapper().readTree(get("/api/v1/machines/" + machine + "/grants").body());
                    for (JsonNode g : body.path("gates")) {
                        if (g.path("live").asBoolean()) {
                            return true;
                        }
                    }
                    return false;
                });
    }

    static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> grant(RepoInfo repo, String machine, String device, boolean exclusive, String wait) throws Exception {
        String body = "{\"device\": \"" + device + "\", \"exclusive\": " + exclusive + "}";
        return HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/api/v1/repos/" + repo.name() + "@" + machine
                        + "/grants?wait=" + wait)).header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> revoke(RepoInfo repo, String machine, String device, String wait) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/api/v1/repos/" + repo.name() + "/grants/"
                        + device.replace("/", "%2F") + "?machine=" + machine + "&wait=" + wait)).timeout(Duration.ofSeconds(60))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The latest snapshot per machine, as a consumer rebuilding from {@code gpu.grants.v1} sees it. */
    static Map<String, GrantSnapshot> latestSnapshots(Duration timeout) {
        Map<String, GrantSnapshot> latest = new HashMap<>();
        Map<String, Object> config = new HashMap<>(kafka.superUser());
        config.putAll(Map.of(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false));
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.GRANTS, timeout).stream()
                    .map(p -> new TopicPartition(Topics.GRANTS, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            Instant deadline = Instant.now().plus(timeout);
            while (partitions.stream().anyMatch(p -> consumer.position(p, timeout) < end.get(p)) && Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        GrantSnapshot s = EventJson.fromBytes(r.value(), GrantSnapshot.class);
                        latest.merge(r.key(), s, (a, b) -> b.version() > a.version() ? b : a);
                    }
                }
            }
        }
        return latest;
    }

    static Set<String> keys(java.util.Collection<Grant> grants) {
        return grants.stream().map(g -> g.repoGuid() + " " + g.device() + (g.exclusive() ? " exclusive" : " shared"))
                .collect(Collectors.toSet());
    }

    static Set<String> dbGrants(String machine) throws Exception {
        return query("SELECT repo_guid || ' ' || device || CASE WHEN exclusive THEN ' exclusive' ELSE ' shared' END FROM grants"
                + " WHERE machine = '" + machine + "'");
    }

    static Set<String> dbRepoNames(String machine) throws Exception {
        return query("SELECT repo_name FROM grants WHERE machine = '" + machine + "'");
    }

    static long dbVersion(String machine) throws Exception {
        Set<String> v = query("SELECT version::text FROM machine_versions WHERE machine = '" + machine + "'");
        return v.isEmpty() ? 0 : Long.parseLong(v.iterator().next());
    }

    static long outboxRows(String machine) throws Exception {
        return Long.parseLong(query("SELECT count(*)::text FROM outbox WHERE aggregateid = '" + machine + "'").iterator().next());
    }

    static Set<String> query(String sql) throws Exception {
        Set<String> out = new HashSet<>();
        try (Connection c = pg.connect("grants"); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    static String counts(Map<Integer, AtomicInteger> counts) {
        Map<Integer, Integer> plain = new LinkedHashMap<>();
        new TreeMap<>(counts).forEach((k, v) -> plain.put(k, v.get()));
        return plain.toString();
    }
}
