package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.standin.StandInDockerd;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged docker-gate, killed with SIGKILL while docker CLI clients and raw HTTP clients send
 * container creates through it, and started again: (a) with the broker up, (b) with the broker
 * stopped. The gate runs as a child process in front of the stand-in daemon (in this JVM, so its
 * recording of every request that reached it is the ground truth), with a real Kafka broker
 * (child process); grant snapshots are published on {@code gpu.grants.v1} as grant-service
 * publishes them (a {@link GrantSnapshot} with CloudEvents headers, keyed by machine). Prints
 * {@code FIGURE} lines (docs/RELIABILITY.md quotes them).
 *
 * <p>The gate keeps its state directory across the kill, as on a machine: a restarted gate answers
 * device requests 503 "grants not loaded yet" until it has read the topic to its end, and enforces
 * the snapshot on disk only when Kafka does not answer within {@code gate.kafka-api-timeout}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GateKillIT {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path STATE = Path.of("target/gate-kill").toAbsolutePath();
    static final String MACHINE = "gate-kill-" + UUID.randomUUID().toString().substring(0, 6);
    static final String REPO_NAME = "trainer";
    static final String REPO_GUID = UUID.randomUUID().toString();
    /** Granted throughout. */
    static final String GRANTED = "nvidia.com/gpu=0";
    /** Granted at version 1, revoked (version 2) while the gate is dead. */
    static final String REVOKED = "nvidia.com/gpu=1";
    /** Never granted. */
    static final List<String> NEVER = List.of("nvidia.com/gpu=all", "rediacc.io/dri=renderD128");
    static final List<String> DEVICES = List.of(GRANTED, REVOKED, NEVER.get(0), GRANTED, NEVER.get(1));
    static final Pattern NAME = Pattern.compile("[?&]name=([^&]+)");
    static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

    static KafkaBroker kafka;
    static ChildProcess broker;
    static KafkaProducer<String, byte[]> producer;
    static String gateKafka;
    static StandInDockerd daemon;
    static ChildProcess gate;
    static int gateStarts;
    static Path socket;
    static Path manifest;
    static final List<String> figures = Collections.synchronizedList(new ArrayList<>());

    /** One create sent by a client: which device, when, and what the gate answered (-1: no gate listening). */
    record Attempt(String name, String client, String device, Instant sent, Instant answered, int status, String detail) {
        boolean admitted() {
            return status == 201;
        }

        boolean answeredByAGate() {
            return status > 0;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(onPath("docker"), "the docker CLI is not on PATH");
        if (Files.exists(STATE)) {
            try (var paths = Files.walk(STATE)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(STATE.resolve("logs"));
        Files.createDirectories(STATE.resolve("docker-config"));
        kafka = new KafkaBroker(STATE.resolve("kafka"), FleetPorts.pick(), FleetPorts.pick(),
                REPO.resolve("local-fleet/target/lib").toAbsolutePath() + "/*");
        broker = kafka.start(STATE.resolve("logs"));
        // the test plays grant-service (super user); the gate logs in as its machine's own user, with a machine's ACLs
        gateKafka = kafka.ensureUser(io.rediacc.gpu.contracts.kafka.KafkaAccess.machinePrincipal(MACHINE),
                io.rediacc.gpu.contracts.kafka.KafkaAccess.Role.MACHINE, MACHINE);
        producer = ModelGates.producer(kafka.superUser(), 15_000);
        daemon = StandInDockerd.startUnix(STATE.resolve("daemon.sock"));
        socket = STATE.resolve("trainer.sock");
        manifest = STATE.resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: %s
                repos:
                  - name: %s
                    guid: %s
                    listen: unix://%s
                    daemon: %s
                """.formatted(MACHINE, REPO_NAME, REPO_GUID, socket, daemon.address()));
    }

    @AfterAll
    static void stop() throws Exception {
        figures.forEach(System.out::println);
        Files.write(STATE.resolve("figures.txt"), figures);
        if (gate != null) {
            gate.stop(Duration.ofSeconds(10));
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(2));
        }
        if (broker != null) {
            broker.stop(Duration.ofSeconds(20));
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    // ---------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void killedUnderLoadAndRestartedWithKafkaUpItAdmitsNothingUngrantedAndNothingRevokedOnceInSync() throws Exception {
        publish(1, GRANTED, REVOKED);
        ChildProcess first = startGate();
        first.awaitReady(() -> syncedAt(first, 1).isPresent(), Duration.ofSeconds(180));
        gate = first;

        try (Load load = new Load()) {
            load.awaitAnswers(GRANTED, 3, Duration.ofSeconds(60));
            load.awaitAnswers(REVOKED, 3, Duration.ofSeconds(60));
            int beforeKill = daemon.received().size();
            Instant kill = sigkill(first);
            // the revoke lands while no gate runs: the snapshot on disk still grants REVOKED
            publish(2, GRANTED);
            int atRestart = daemon.received().size();
            Instant restart = Instant.now();
            ChildProcess second = startGate();
            gate = second;
            second.awaitReady(() -> syncedAt(second, 2).isPresent(), Duration.ofSeconds(180));
            Instant synced = syncedAt(second, 2).orElseThrow();
            load.awaitAnswersSentAfter(synced, GRANTED, 3, Duration.ofSeconds(60));
            load.awaitAnswersSentAfter(synced, REVOKED, 3, Duration.ofSeconds(60));
            List<Attempt> all = load.stop();

            List<Attempt> steady = all.stream().filter(a -> a.answered().isBefore(kill)).toList();
            assertThat(steady).as("before the kill the gate enforced version 1")
                    .anyMatch(a -> a.device().equals(GRANTED) && a.admitted())
                    .anyMatch(a -> a.device().equals(REVOKED) && a.admitted())
                    .noneMatch(a -> NEVER.contains(a.device()) && a.admitted());
            // a create sent after the kill can only have been answered by the restarted gate (one sent before
            // and answered after was in flight at the kill: left out)
            List<Attempt> window = all.stream().filter(a -> !a.sent().isBefore(kill)).toList();
            List<Attempt> byRestarted = window.stream().filter(Attempt::answeredByAGate).toList();
            Instant firstAnswer = byRestarted.stream().map(Attempt::answered).min(Comparator.naturalOrder()).orElseThrow();
            List<Attempt> killWindow = window.stream().filter(a -> a.sent().isBefore(firstAnswer)).toList();
            List<Attempt> beforeSync = byRestarted.stream().filter(a -> a.answered().isBefore(synced)).toList();
            List<Attempt> sentAfterSync = byRestarted.stream().filter(a -> a.sent().isAfter(synced)).toList();

            // ground truth: what reached the daemon
            Map<String, Attempt> byName = all.stream().collect(Collectors.toMap(Attempt::name, a -> a));
            List<String> wronglyAdmitted = creates(0).stream().filter(b -> NEVER.stream().anyMatch(b::contains)).toList();
            List<Attempt> revokedAfterRestart = createNames(atRestart, REVOKED).stream().map(byName::get).toList();
            List<Attempt> grantedBeforeSync = beforeSync.stream().filter(a -> a.device().equals(GRANTED) && a.admitted()).toList();
            List<Attempt> anyDeviceAdmittedBeforeSync = beforeSync.stream().filter(Attempt::admitted).toList();
            Instant firstGranted = byRestarted.stream().filter(a -> a.device().equals(GRANTED) && a.admitted())
                    .map(Attempt::answered).min(Comparator.naturalOrder()).orElseThrow();

            assertThat(all).as("once the restarted gate answers, every create gets a gate's answer")
                    .filteredOn(a -> a.sent().isAfter(firstAnswer)).allMatch(Attempt::answeredByAGate);
            assertThat(wronglyAdmitted).as("creates naming a never-granted device that reached the daemon").isEmpty();
            assertThat(revokedAfterRestart).as("every create that reached the daemon is one the load sent").doesNotContainNull();
            // The rule: no device request admitted before the restarted gate is in sync (with Kafka up, its
            // snapshot on disk is not enforced: it may still grant what was revoked while the gate was dead).
            assertThat(revokedAfterRestart).as("the device revoked while the gate was dead reached the daemon after the restart")
                    .isEmpty();
            assertThat(anyDeviceAdmittedBeforeSync).as("device requests admitted by the restarted gate before it was in sync")
                    .isEmpty();
            assertThat(sentAfterSync).as("once in sync: granted admitted, revoked and never-granted refused")
                    .anyMatch(a -> a.device().equals(GRANTED) && a.admitted())
                    .allMatch(a -> a.device().equals(GRANTED) == a.admitted());
            assertThat(beforeSync).as("answers of the restarted gate before it was in sync: 503 grants not loaded yet"
                            + " (or 403 not granted)")
                    .allMatch(a -> a.status() == 403 || a.status() == 503);
            assertThat(daemon.received().size()).isGreaterThan(beforeKill);

            figures.add("FIGURE gate-kill9-kafka-up: " + all.size() + " creates by 2 docker CLI + 3 raw HTTP clients ("
                    + countBy(all, Attempt::client) + "); SIGKILL, revoke of " + REVOKED + " published while dead, restart with the"
                    + " broker up: " + killWindow.size() + " creates sent during the kill window ("
                    + Duration.between(kill, firstAnswer).toMillis() + " ms from kill to the restarted gate's first answer, "
                    + "answers " + statuses(killWindow) + "); restarted gate in sync (log line) "
                    + Duration.between(restart, synced).toMillis() + " ms after its start; answers before sync "
                    + statuses(beforeSync) + " → device requests admitted before sync " + anyDeviceAdmittedBeforeSync.size()
                    + " (granted " + grantedBeforeSync.size() + "), revoked device admitted after the restart "
                    + revokedAfterRestart.size() + "; wrongly admitted (never granted, daemon's record) "
                    + wronglyAdmitted.size() + "; first admitted granted create " + Duration.between(restart, firstGranted).toMillis()
                    + " ms after the restart; answers after sync " + statuses(sentAfterSync));
        }
    }

    @Test
    @Order(2)
    void killedUnderLoadAndRestartedWithKafkaStoppedItEnforcesTheSnapshotOnDisk() throws Exception {
        broker.stop(Duration.ofSeconds(20));
        try (Load load = new Load()) {
            load.awaitAnswers(GRANTED, 3, Duration.ofSeconds(60));
            Instant kill = sigkill(gate);
            int atRestart = daemon.received().size();
            Instant restart = Instant.now();
            ChildProcess third = startGate();
            gate = third;
            third.awaitReady(() -> load.admittedSince(restart, GRANTED) >= 5 && load.answeredSince(restart, REVOKED) >= 3
                    && load.answeredSince(restart, NEVER.get(0)) >= 2, Duration.ofSeconds(180));
            List<Attempt> all = load.stop();

            List<Attempt> byRestarted = all.stream().filter(a -> a.answeredByAGate() && !a.sent().isBefore(kill)).toList();
            Instant firstAnswer = byRestarted.stream().map(Attempt::answered).min(Comparator.naturalOrder()).orElseThrow();
            List<Attempt> killWindow = all.stream().filter(a -> !a.sent().isBefore(kill) && a.sent().isBefore(firstAnswer)).toList();
            Instant firstGranted = byRestarted.stream().filter(a -> a.device().equals(GRANTED) && a.admitted())
                    .map(Attempt::answered).min(Comparator.naturalOrder()).orElseThrow();
            List<String> reached = creates(atRestart);

            assertThat(all).as("once the restarted gate answers, every create gets a gate's answer")
                    .filteredOn(a -> a.sent().isAfter(firstAnswer)).allMatch(Attempt::answeredByAGate);
            assertThat(third.tail(Integer.MAX_VALUE)).as("the gate started from its snapshot on disk")
                    .contains("loaded grant snapshot version 2 of " + MACHINE + " from disk")
                    .doesNotContain("are in sync");
            assertThat(third.tail(Integer.MAX_VALUE)).as("the disk snapshot enforced once Kafka did not answer")
                    .contains("Kafka cannot be reached: enforcing the grant snapshot kept on disk (version 2");
            // until the feed gives up on Kafka (gate.kafka-api-timeout) every device request is 503 "grants not loaded yet"
            assertThat(byRestarted).as("with the broker down: " + GRANTED + " admitted, the revoked and never-granted refused as"
                            + " not granted (503 while the gate still waits for Kafka)")
                    .allMatch(a -> a.status() == 503 && a.detail().contains("grants not loaded yet")
                            || (a.device().equals(GRANTED) ? a.admitted() : a.status() == 403 && a.detail().contains("is not granted")))
                    .anyMatch(a -> a.device().equals(GRANTED) && a.admitted());
            assertThat(reached).as("what reached the daemon after the restart").isNotEmpty()
                    .allMatch(b -> b.contains(GRANTED) && !b.contains(REVOKED) && NEVER.stream().noneMatch(b::contains));

            figures.add("FIGURE gate-kill9-kafka-down: broker stopped, gate SIGKILLed under load (" + all.size() + " creates) and restarted: "
                    + killWindow.size() + " creates sent during the kill window (" + Duration.between(kill, firstAnswer).toMillis()
                    + " ms from kill to first answer); restarted gate enforced its snapshot on disk (version 2): answers "
                    + statusesByDevice(byRestarted) + "; wrongly admitted (revoked or never granted, daemon's record) 0 of "
                    + reached.size() + " creates that reached the daemon; first admitted granted create "
                    + Duration.between(restart, firstGranted).toMillis() + " ms after the restart");
        }
    }

    // ---------------------------------------------------------------------------------------------

    static boolean onPath(String command) {
        return java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, command)));
    }

    static void publish(long version, String... devices) throws Exception {
        List<Grant> grants = new ArrayList<>();
        for (String d : devices) {
            grants.add(new Grant(REPO_GUID, REPO_NAME, d, false, "gate-kill-it", Instant.now()));
        }
        byte[] value = EventJson.toBytes(new GrantSnapshot(MACHINE, version, Instant.now(), grants));
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.GRANTS, MACHINE, value);
        // signed as grant-service's relay signs: the gate applies nothing else
        Map<String, byte[]> headers = new java.util.LinkedHashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC, "/grant-service", MACHINE));
        java.security.KeyPair key = io.rediacc.gpu.contracts.signing.KeyPairFile.ensure(GRANTS_KEY).pair();
        new io.rediacc.gpu.contracts.signing.RecordSigner(key.getPrivate(), key.getPublic()).sign(Topics.GRANTS, MACHINE, headers, value);
        headers.forEach((k, v) -> record.headers().add(k, v));
        producer.send(record).get(15, TimeUnit.SECONDS);
    }

    /** grant-service's key pair as this test plays grant-service. */
    static final Path GRANTS_KEY = Path.of("target/gate-kill-grant-service-key.pem").toAbsolutePath();

    static ChildProcess startGate() throws IOException {
        io.rediacc.gpu.contracts.signing.KeyPairFile.ensure(GRANTS_KEY);
        gateStarts++;
        List<String> command = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.port=" + FleetPorts.pick(),
                "-Dkafka.bootstrap.servers=" + kafka.bootstrapServers(),
                "-Dkafka.security.protocol=" + KafkaBroker.PROTOCOL,
                "-Dkafka.sasl.mechanism=" + io.rediacc.gpu.contracts.kafka.KafkaAccess.MECHANISM,
                "-Dkafka.sasl.jaas.config=" + io.rediacc.gpu.contracts.kafka.KafkaAccess.jaasConfig(
                        io.rediacc.gpu.contracts.kafka.KafkaAccess.machinePrincipal(MACHINE), gateKafka),
                "-Dgate.manifest=" + manifest,
                "-Dgate.state-dir=" + STATE.resolve("gate-state"),
                "-Dgate.id=gate-kill",
                "-Dgate.heartbeat=5s",
                "-Dgate.kafka-api-timeout=3s",
                "-Dgate.grants-key=" + GRANTS_KEY,
                "-jar", REPO.resolve("docker-gate/target/quarkus-app/quarkus-run.jar").toString()));
        command.addAll(1, ClassDataArchive.forQuarkusApp("docker-gate", REPO.resolve("docker-gate/target/quarkus-app/quarkus-run.jar")));
        return ChildProcess.start("docker-gate-" + gateStarts, command, REPO, STATE.resolve("logs"), Map.of());
    }

    static Instant sigkill(ChildProcess p) {
        ProcessHandle handle = ProcessHandle.of(p.pid()).orElseThrow();
        Instant at = Instant.now();
        handle.destroyForcibly(); // SIGKILL
        handle.onExit().join();
        return at;
    }

    /** When this gate logged that it read the grants topic to its end at {@code version}. */
    static Optional<Instant> syncedAt(ChildProcess p, long version) {
        String marker = "grants of " + MACHINE + " are in sync at version " + version;
        try {
            for (String line : Files.readAllLines(p.log())) {
                if (line.contains(marker)) {
                    return Optional.of(LocalDateTime.parse(line.substring(0, 23), LOG_TIME).atZone(ZoneId.systemDefault()).toInstant());
                }
            }
        } catch (IOException | RuntimeException notYet) {
            // not written yet
        }
        return Optional.empty();
    }

    /** Bodies of the creates that reached the daemon, from its {@code from}-th request on. */
    static List<String> creates(int from) {
        List<StandInDockerd.Received> all = daemon.received();
        return all.subList(from, all.size()).stream()
                .filter(r -> r.method().equals("POST") && r.path().endsWith("/containers/create"))
                .map(StandInDockerd.Received::bodyText).toList();
    }

    /** Container names of the creates naming {@code device} that reached the daemon from its {@code from}-th request on. */
    static List<String> createNames(int from, String device) {
        List<StandInDockerd.Received> all = daemon.received();
        return all.subList(from, all.size()).stream()
                .filter(r -> r.method().equals("POST") && r.path().endsWith("/containers/create") && r.bodyText().contains(device))
                .map(r -> {
                    Matcher m = NAME.matcher(r.uri());
                    return m.find() ? m.group(1) : "(unnamed)";
                }).toList();
    }

    static String statuses(List<Attempt> attempts) {
        return countBy(attempts, a -> a.status() < 0 ? "no gate" : Integer.toString(a.status()));
    }

    static String statusesByDevice(List<Attempt> attempts) {
        return countBy(attempts, a -> a.device() + " " + (a.status() < 0 ? "no gate" : Integer.toString(a.status())));
    }

    static String countBy(List<Attempt> attempts, java.util.function.Function<Attempt, String> key) {
        return new TreeMap<>(attempts.stream().collect(Collectors.groupingBy(key, Collectors.counting()))).toString();
    }

    // ---------------------------------------------------------------------------------------------

    /** Two docker CLI clients and three raw HTTP clients sending creates in a loop, each with a unique container name. */
    static final class Load implements AutoCloseable {
        private static final AtomicInteger SEQ = new AtomicInteger();
        private final List<Attempt> attempts = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, AtomicInteger> answered = new ConcurrentHashMap<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;

        Load() {
            for (int i = 0; i < 2; i++) {
                int offset = i;
                threads.add(start("cli-" + i, () -> loop("cli", offset, this::cli)));
            }
            for (int i = 0; i < 3; i++) {
                int offset = 2 + i;
                threads.add(start("raw-" + i, () -> loop("raw", offset, this::raw)));
            }
        }

        private static Thread start(String name, Runnable body) {
            Thread t = new Thread(body, name);
            t.setDaemon(true);
            t.start();
            return t;
        }

        interface Client {
            Attempt send(String name, String device);
        }

        private void loop(String client, int offset, Client c) {
            for (int i = offset; running; i++) {
                String device = DEVICES.get(i % DEVICES.size());
                Attempt a = c.send(client + "-" + SEQ.incrementAndGet(), device);
                attempts.add(a);
                if (a.answeredByAGate()) {
                    answered.computeIfAbsent(device, d -> new AtomicInteger()).incrementAndGet();
                } else {
                    ChildProcess.sleep(20); // no gate listening: try again shortly, as a client retry loop would
                }
            }
        }

        private Attempt cli(String name, String device) {
            Instant sent = Instant.now();
            try {
                Path err = STATE.resolve("logs").resolve(Thread.currentThread().getName() + ".err");
                ProcessBuilder pb = new ProcessBuilder("docker", "-H", "unix://" + socket, "create", "--device", device,
                        "--name", name, "busybox").redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile());
                pb.environment().put("DOCKER_CONFIG", STATE.resolve("docker-config").toString());
                Process p = pb.start();
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return new Attempt(name, "cli", device, sent, Instant.now(), 0, "docker create did not finish in 30 s");
                }
                String stderr = Files.readString(err);
                int status;
                if (p.exitValue() == 0) {
                    status = 201;
                } else if (stderr.contains("grants not loaded yet")) {
                    status = 503;
                } else if (stderr.contains("is not granted")) {
                    status = 403;
                } else if (stderr.contains("Cannot connect") || stderr.contains("connection refused")
                        || stderr.contains("no such file")) {
                    status = -1;
                } else {
                    status = 0; // unclassified: fails the assertions, with the message in the attempt
                }
                return new Attempt(name, "cli", device, sent, Instant.now(), status, stderr.strip());
            } catch (IOException e) {
                return new Attempt(name, "cli", device, sent, Instant.now(), 0, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Attempt(name, "cli", device, sent, Instant.now(), 0, e.toString());
            }
        }

        /** POST /containers/create over the gate's unix socket, one connection per request. */
        private Attempt raw(String name, String device) {
            byte[] body = ("{\"Image\":\"busybox\",\"Cmd\":[\"true\"],\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\","
                    + "\"Count\":0,\"DeviceIDs\":[\"" + device + "\"]}]}}").getBytes(StandardCharsets.UTF_8);
            String head = "POST /v1.45/containers/create?name=" + name + " HTTP/1.1\r\nHost: docker\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
            Instant sent = Instant.now();
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                try {
                    ch.connect(UnixDomainSocketAddress.of(socket));
                } catch (IOException noGate) {
                    return new Attempt(name, "raw", device, sent, Instant.now(), -1, noGate.toString());
                }
                ch.write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
                ch.write(ByteBuffer.wrap(body));
                String response = readResponse(ch);
                int status = response.startsWith("HTTP/1.1 ") ? Integer.parseInt(response.substring(9, 12)) : 0;
                return new Attempt(name, "raw", device, sent, Instant.now(), status, response);
            } catch (IOException | RuntimeException e) {
                // the gate died mid-request
                return new Attempt(name, "raw", device, sent, Instant.now(), -1, e.toString());
            }
        }

        /** Reads the status line, the headers and a Content-Length body (the gate and the daemon both send one). */
        private static String readResponse(SocketChannel ch) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(8192);
            int headerEnd = -1;
            int length = -1;
            while (true) {
                buf.clear();
                int n = ch.read(buf);
                if (n < 0) {
                    return out.toString(StandardCharsets.UTF_8);
                }
                out.write(buf.array(), 0, n);
                String text = out.toString(StandardCharsets.ISO_8859_1);
                if (headerEnd < 0 && (headerEnd = text.indexOf("\r\n\r\n")) >= 0) {
                    Matcher m = Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(text.substring(0, headerEnd));
                    length = m.find() ? Integer.parseInt(m.group(1)) : -1;
                }
                if (headerEnd >= 0 && length >= 0 && out.size() >= headerEnd + 4 + length) {
                    return out.toString(StandardCharsets.UTF_8);
                }
            }
        }

        int answeredSince(Instant since, String device) {
            synchronized (attempts) {
                return (int) attempts.stream().filter(a -> a.device().equals(device) && a.answeredByAGate() && a.sent().isAfter(since))
                        .count();
            }
        }

        int admittedSince(Instant since, String device) {
            synchronized (attempts) {
                return (int) attempts.stream().filter(a -> a.device().equals(device) && a.admitted() && a.sent().isAfter(since))
                        .count();
            }
        }

        void awaitAnswers(String device, int count, Duration timeout) {
            awaitAnswersSentAfter(Instant.EPOCH, device, count, timeout);
        }

        void awaitAnswersSentAfter(Instant since, String device, int count, Duration timeout) {
            org.awaitility.Awaitility.await("at least " + count + " answers for " + device).atMost(timeout)
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(answeredSince(since, device)).as(() -> "answers for " + device
                            + "; last attempts: " + lastAttempts(5))
                            .isGreaterThanOrEqualTo(count));
        }

        private List<Attempt> lastAttempts(int n) {
            List<Attempt> all = List.copyOf(attempts);
            return all.subList(Math.max(0, all.size() - n), all.size());
        }

        List<Attempt> stop() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.join(60_000);
            }
            synchronized (attempts) {
                List<Attempt> copy = new ArrayList<>(attempts);
                copy.sort(Comparator.comparing(Attempt::sent));
                return copy;
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
