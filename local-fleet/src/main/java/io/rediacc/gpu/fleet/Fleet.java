package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.kafka.KafkaAccess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./fleet up}: the whole fleet on this machine, on embedded defaults — a real Kafka broker,
 * PostgreSQL, grant-service, inventory-service, and one simulated GPU machine (node-agent on a
 * fixture root with 2 NVIDIA GPUs and 1 AMD GPU, and a docker-gate with two repos, one a fork of the
 * other, each in front of its own real dockerd — or of a stand-in daemon where real ones cannot run,
 * said in one line). State lives in {@code .fleet/}; a second run reuses it.
 */
public final class Fleet {

    static final String MACHINE = "local-gpu";

    private final Path repoRoot;
    private final Path state;
    private final List<Child> children = new ArrayList<>();
    /** The broker: stopped after every other child, which may still talk to it as it closes. */
    private Child broker;
    private FleetPostgres postgres;
    private SshServer sshd;

    Fleet(Path repoRoot, Path state) {
        this.repoRoot = repoRoot.toAbsolutePath().normalize();
        this.state = state.toAbsolutePath().normalize();
    }

    public static void main(String[] args) {
        Path root = Path.of(System.getProperty("fleet.root", "."));
        // fleet.state lets a test run its own fleet beside a developer's .fleet/
        Path state = Path.of(System.getProperty("fleet.state", root.resolve(".fleet").toString()));
        String command = args.length == 0 ? "up" : args[0];
        Fleet fleet = new Fleet(root, state);
        try {
            switch (command) {
                case "up" -> fleet.up();
                case "down" -> fleet.down();
                case "drop-databases" -> fleet.dropDatabases();
                default -> {
                    System.err.println("usage: fleet up [-d] | fleet down | fleet drop-databases");
                    System.exit(2);
                }
            }
        } catch (FleetException e) {
            System.err.println("fleet: " + e.getMessage());
            fleet.stopAll();
            System.exit(1);
        } catch (IOException e) {
            System.err.println("fleet: " + e);
            fleet.stopAll();
            System.exit(1);
        }
    }

    void up() throws IOException {
        Files.createDirectories(state.resolve("logs"));
        Files.deleteIfExists(state.resolve("fleet.env"));
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll, "fleet-shutdown"));
        FleetPorts ports = new FleetPorts(state.resolve("ports.properties"));
        Path logs = state.resolve("logs");
        say("state in " + state);

        KafkaBroker kafka = new KafkaBroker(state.resolve("kafka"), ports.port("kafka"), ports.port("kafka-controller"),
                libClasspath());
        broker = track(kafka.start(logs));
        // every client logs in as itself, with exactly its ACLs (contracts KafkaAccess), as in production; the machine's
        // user is made by rdc machine setup below, through inventory-service (which manages machines' users)
        String grantKafka = kafka.ensureUser(KafkaAccess.GRANT_SERVICE, KafkaAccess.Role.GRANT_SERVICE, null);
        String inventoryKafka = kafka.ensureUser(KafkaAccess.INVENTORY_SERVICE, KafkaAccess.Role.INVENTORY_SERVICE, null);
        String monitoringKafka = kafka.ensureUser(KafkaAccess.MONITORING, KafkaAccess.Role.MONITORING, null);
        String userAdminKafka = kafka.ensureUserAdmin();
        say("kafka        " + kafka.bootstrapServers() + " (SASL SCRAM-SHA-512, ACLs on: one user per service and per machine)");

        postgres = FleetPostgres.open(state.resolve("postgres"));
        String grantsDb = databaseName("grants");
        String inventoryDb = databaseName("inventory");
        postgres.ensureDatabase(grantsDb);
        postgres.ensureDatabase(inventoryDb);
        var pg = postgres.credentials();
        say("postgresql   " + pg.host() + ":" + pg.port() + (postgres.embedded() ? " (embedded)" : " (local server)"));

        LocalMachine machine = LocalMachine.prepare(state.resolve("machine"), MACHINE, repoRoot);

        int grantPort = ports.port("grant-service");
        // both services answer 401 to callers without a token: the fleet's operator gets a fresh one per start,
        // the same for both (api.auth.*, module api-security), handed to rdc as RDC_TOKEN in fleet.env
        String operatorToken = newToken();
        // and a viewer, for inventory-service's dashboard (DASHBOARD_TOKEN in fleet.env): it reads, never grants
        String viewerToken = newToken();
        Map<String, Object> auth = Map.of(
                "api.auth.mode", "tokens",
                "api.auth.tokens.fleet-operator.token", operatorToken,
                "api.auth.tokens.fleet-operator.roles", "operator",
                "api.auth.tokens.fleet-viewer.token", viewerToken,
                "api.auth.tokens.fleet-viewer.roles", "viewer");
        int grantMetricsPort = ports.port("grant-service-management");
        Map<String, Object> grantConfig = new LinkedHashMap<>(Map.of(
                "quarkus.http.port", grantPort,
                "quarkus.management.port", grantMetricsPort, // /q/metrics, apart from the API
                "quarkus.datasource.reactive.url", pg.reactiveUrl(grantsDb),
                "quarkus.datasource.username", pg.user(),
                "quarkus.datasource.password", pg.password()));
        grantConfig.putAll(kafka.quarkusConfig(KafkaAccess.GRANT_SERVICE, grantKafka));
        grantConfig.putAll(auth);
        // grant-service's signing key (grants, audit events, the removal path's tombstones): made here, before any
        // service starts, because inventory-service (tombstones) and the gate (grants) are given its public half
        Path serviceKey = state.resolve("grant-service-signing-key.pem");
        io.rediacc.gpu.contracts.signing.KeyPairFile.ensure(serviceKey);
        grantConfig.put("grants.signing.key-file", serviceKey);
        ChildProcess grants = track(Services.start("grant-service", repoRoot, logs, grantConfig));
        int inventoryPort = ports.port("inventory-service");
        int inventoryMetricsPort = ports.port("inventory-service-management");
        Map<String, Object> inventoryConfig = new LinkedHashMap<>(Map.of(
                "quarkus.http.port", inventoryPort,
                "quarkus.management.port", inventoryMetricsPort,
                "quarkus.datasource.reactive.url", pg.reactiveUrl(inventoryDb),
                "quarkus.datasource.username", pg.user(),
                "quarkus.datasource.password", pg.password()));
        inventoryConfig.putAll(kafka.quarkusConfig(KafkaAccess.INVENTORY_SERVICE, inventoryKafka));
        // it creates and deletes machines' Kafka users (rdc machine setup / remove), logged in as the user admin
        inventoryConfig.put("inventory.kafka-users.enabled", true);
        inventoryConfig.put("inventory.kafka-users.admin-username", KafkaBroker.USER_ADMIN);
        inventoryConfig.put("inventory.kafka-users.admin-password", userAdminKafka);
        inventoryConfig.putAll(auth);
        inventoryConfig.put("inventory.signing.service-key", io.rediacc.gpu.contracts.signing.KeyPairFile.publicFileOf(serviceKey));
        ChildProcess inventory = track(Services.start("inventory-service", repoRoot, logs, inventoryConfig));

        // setup first: the real daemons read the CDI specs it writes, the image names the cards it found
        machine.runSetup(repoRoot, logs);
        LocalMachine.Daemons daemons = machine.startDaemons(logs, libClasspath());
        daemons.children().forEach(this::track);
        say(daemons.summary());
        // the machine's SSH server, in this JVM: rdc machine setup reaches the simulated machine over SSH, as an
        // operator reaches a real one, on any host (node-agent setup ran above already: the real daemons' image
        // needs the cards it found)
        sshd = SshServer.start(state.resolve("sshd"), ports.port("sshd"));
        say("sshd         127.0.0.1:" + sshd.port + " (the simulated machine's SSH server)");
        grants.awaitHttpOk("http://127.0.0.1:" + grantPort + "/q/health/ready", ChildProcess.START_BOUND);
        inventory.awaitHttpOk("http://127.0.0.1:" + inventoryPort + "/q/health/ready", ChildProcess.START_BOUND);
        String grantUrl = "http://127.0.0.1:" + grantPort;
        String inventoryUrl = "http://127.0.0.1:" + inventoryPort;
        Path rdcConfig = machine.writeRdcConfig(state.resolve("rdc.yaml"), sshd);
        say("rdc machine setup " + MACHINE);
        // setup makes the machine's Kafka user (its "kafka user:" step writes /etc/rediacc/gpu/kafka.env) before it
        // starts the services; systemd is a stand-in here, so node-agent and docker-gate are started by the fleet, with
        // that file's login, as their units' EnvironmentFile= would give it to them; setup then waits for the fleet
        java.util.concurrent.CompletableFuture<Void> kafkaUserMade = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<Void> setup = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                machine.setupOverSsh(repoRoot, rdcConfig, Map.of("RDC_GRANT_URL", grantUrl, "RDC_INVENTORY_URL", inventoryUrl,
                        "RDC_TOKEN", operatorToken), line -> {
                            say(line);
                            if (line.strip().startsWith("kafka user: ")) {
                                kafkaUserMade.complete(null);
                            }
                        });
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try {
            java.util.concurrent.CompletableFuture.anyOf(kafkaUserMade, setup).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw setupFailed(e);
        }
        if (!kafkaUserMade.isDone()) {
            throw new FleetException("rdc machine setup ended without making the machine's Kafka user");
        }
        Map<String, Object> machineKafka = kafka.quarkusConfig(machine.kafkaLogin().username(), machine.kafkaLogin().password());
        // node-agent and docker-gate of the machine run as systemd would run them once setup enabled them
        Map<String, Object> agentConfig = new LinkedHashMap<>(machine.agentConfig(kafka.bootstrapServers()));
        agentConfig.putAll(machineKafka);
        ChildProcess agent = track(Services.start("node-agent", repoRoot, logs, agentConfig, "run"));
        int gatePort = ports.port("docker-gate");
        Map<String, Object> gateConfig = new LinkedHashMap<>(machine.gateConfig(kafka.bootstrapServers(), gatePort));
        gateConfig.putAll(machineKafka);
        // the gate applies only grant snapshots signed by grant-service's key
        gateConfig.put("gate.grants-key", io.rediacc.gpu.contracts.signing.KeyPairFile.publicFileOf(serviceKey));
        ChildProcess gate = track(Services.start("docker-gate", repoRoot, logs, gateConfig));
        try {
            setup.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw setupFailed(e);
        }
        gate.awaitHttpOk("http://127.0.0.1:" + gatePort + "/q/health/ready", ChildProcess.START_BOUND);
        machine.awaitInventory(agent, inventoryUrl, grantUrl, operatorToken, ChildProcess.START_BOUND);

        Map<String, String> env = new LinkedHashMap<>();
        env.put("FLEET_MACHINE", MACHINE);
        env.put("RDC_GRANT_URL", grantUrl);
        env.put("RDC_INVENTORY_URL", inventoryUrl);
        env.put("RDC_TOKEN", operatorToken);
        env.put("DASHBOARD_URL", inventoryUrl + "/dashboard");
        env.put("DASHBOARD_TOKEN", viewerToken);
        env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
        // a reader of every topic and writer of none (monitoring, kcat, the tests' checks): KAFKA_* as the services take them
        env.put("KAFKA_SECURITY_PROTOCOL", KafkaBroker.PROTOCOL);
        env.put("KAFKA_SASL_MECHANISM", KafkaAccess.MECHANISM);
        env.put("KAFKA_SASL_JAAS_CONFIG", KafkaAccess.jaasConfig(KafkaAccess.MONITORING, monitoringKafka));
        // what Prometheus would scrape: the services' management ports, the gate's HTTP port (it serves no API)
        env.put("METRICS_GRANT_SERVICE", "http://127.0.0.1:" + grantMetricsPort + "/q/metrics");
        env.put("METRICS_INVENTORY_SERVICE", "http://127.0.0.1:" + inventoryMetricsPort + "/q/metrics");
        env.put("METRICS_DOCKER_GATE", "http://127.0.0.1:" + gatePort + "/q/metrics");
        env.put("RDC", repoRoot.resolve("cli/rdc").toString());
        env.put("RDC_CONFIG", rdcConfig.toString()); // machines: local-gpu's SSH address, for rdc machine setup
        machine.repos().forEach(r -> env.put("DOCKER_HOST_" + r.envName(), "unix://" + r.gateSocket()));
        // the daemons themselves, behind the gates: for comparisons (bench/), never for a repo's users
        machine.repos().forEach(r -> env.put("FLEET_DAEMON_" + r.envName(), "unix://" + r.daemonSocket()));
        env.put("FLEET_DAEMONS", daemons.real() ? "real" : "standin");
        if (daemons.dockerConfig() != null) {
            env.put("DOCKER_CONFIG", daemons.dockerConfig().toString()); // holds the compose plugin that sends CDI requests
        }
        writeEnv(env);
        writePids();

        say("");
        say("grant-service      " + grantUrl + "   (OpenAPI: " + grantUrl + "/q/openapi)");
        say("inventory-service  " + inventoryUrl);
        say("dashboard          " + inventoryUrl + "/dashboard   (log in with the viewer token $DASHBOARD_TOKEN of fleet.env)");
        say("machine            " + MACHINE + " (fixture root " + machine.root() + ")");
        machine.repos().forEach(r -> say("DOCKER_HOST=unix://" + r.gateSocket() + "   # repo " + r.name()
                + (r.forkOf() != null ? " (fork of " + r.forkOfName() + ")" : "")));
        say("");
        say("next:  source " + repoRoot.relativize(state.resolve("fleet.env")));
        say("       $RDC machine gpu list " + MACHINE);
        say("       DOCKER_HOST=$DOCKER_HOST_GPU_A docker run --rm --device nvidia.com/gpu=all ubuntu:24.04 nvidia-smi -L");
        say("       $RDC repo gpu grant gpu-a@" + MACHINE + " --device nvidia.com/gpu=all");
        say("fleet ready");
        Files.writeString(state.resolve("ready"), Long.toString(ProcessHandle.current().pid()));

        // Stay in the foreground until Ctrl-C (or ./fleet down); a child that dies is reported.
        while (true) {
            for (Child c : List.copyOf(children)) {
                if (!c.alive()) {
                    throw new FleetException(c.name() + " stopped unexpectedly; last lines of " + c.log() + ":\n" + c.tail(20));
                }
            }
            ChildProcess.sleep(1000);
        }
    }

    void down() throws IOException {
        Path pids = state.resolve("pids");
        if (!Files.exists(pids)) {
            say("no fleet is running here");
            return;
        }
        // the fleet's JVM first: it stops its children in order (a real dockerd stops its containers and
        // unmounts); then whatever is left; then what a killed fleet's daemons left behind
        List<ProcessHandle> handles = Files.readAllLines(pids).stream().filter(l -> !l.isBlank())
                .map(l -> ProcessHandle.of(Long.parseLong(l.trim()))).flatMap(java.util.Optional::stream).toList();
        if (!handles.isEmpty()) {
            // it takes a while (each repo daemon stops its containers first): say what is happening
            say("stopping the fleet (pid " + handles.get(0).pid() + "): the simulated machine's gate, node-agent and repo "
                    + "daemons (each stops its containers), the services, Kafka and PostgreSQL; under a minute ...");
            handles.get(0).destroy();
            // a bound, not a wait: the first stop after a build also writes the services' class-data archives
            // (ClassDataArchive), and a loaded machine stops everything slower
            handles.get(0).onExit().completeOnTimeout(handles.get(0), ChildProcess.START_BOUND.toSeconds(),
                    java.util.concurrent.TimeUnit.SECONDS).join();
        }
        handles.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
        for (ProcessHandle h : handles) {
            h.onExit().completeOnTimeout(h, 15, java.util.concurrent.TimeUnit.SECONDS).join();
        }
        LocalMachine.cleanUpDaemons(state.resolve("machine"));
        Files.deleteIfExists(pids);
        Files.deleteIfExists(state.resolve("ready"));
        say("fleet stopped; its state stays in .fleet/ for the next ./fleet up (./fleet reset starts clean)");
    }

    private static FleetException setupFailed(java.util.concurrent.CompletionException e) {
        return e.getCause() instanceof FleetException f ? f : new FleetException("rdc machine setup failed: " + e.getCause());
    }

    /**
     * {@code ./fleet reset}: drops this state's databases on the local PostgreSQL server before the state (and with it
     * the suffix that names them) goes; an embedded server's data is in the state and goes with it. Without this,
     * every reset left two databases behind on the machine's server.
     */
    void dropDatabases() throws IOException {
        if (!Files.exists(state.resolve("database-suffix"))) {
            return;
        }
        List<String> names;
        try {
            names = List.of(databaseName("grants"), databaseName("inventory"));
        } catch (FleetException e) {
            say("dropping no database: " + e.getMessage());
            return;
        }
        java.util.Optional<FleetPostgres> server = FleetPostgres.openServer();
        if (server.isEmpty()) {
            say("no PostgreSQL server reachable: nothing to drop there (an embedded one's data goes with .fleet/)");
            return;
        }
        try (FleetPostgres pg = server.get()) {
            for (String name : names) {
                pg.dropDatabase(name);
                say("dropped database " + name);
            }
        } catch (FleetException e) {
            throw e;
        } catch (Exception e) {
            throw new FleetException("could not drop the fleet's databases: " + e.getMessage(), e);
        }
    }

    /**
     * A database per fleet state: the name carries a suffix chosen when the state directory was
     * made, so a new {@code .fleet/} never inherits grants from another fleet on the same server.
     */
    String databaseName(String service) throws IOException {
        Path file = state.resolve("database-suffix");
        if (!Files.exists(file)) {
            Files.writeString(file, java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 8));
        }
        String suffix = Files.readString(file).trim();
        // the name goes into CREATE/DROP DATABASE: only what this method writes (hex) is used
        if (!suffix.matches("[0-9a-f]{1,32}")) {
            throw new FleetException(file + " holds \"" + suffix + "\", not a suffix the fleet wrote (hex digits); "
                    + "./fleet reset starts a clean fleet");
        }
        return "gpu_fleet_" + service + "_" + suffix;
    }

    private <T extends Child> T track(T child) {
        children.add(child);
        return child;
    }

    synchronized void stopAll() {
        stopInWaves(children, broker, Duration.ofSeconds(10));
        children.clear();
        broker = null;
        if (sshd != null) {
            sshd.close();
            sshd = null;
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (Exception ignored) {
                // the embedded server goes with the JVM
            }
            postgres = null;
        }
        try {
            Files.deleteIfExists(state.resolve("ready"));
            Files.deleteIfExists(state.resolve("pids"));
        } catch (IOException ignored) {
            // nothing to clean
        }
    }

    /**
     * Stops every child but {@code last} at once, then {@code last}. Each child waits on its own shutdown (a repo daemon
     * stops its containers; inventory-service's consumers leave their group one rebalance at a time, ~16 s), so one
     * after another the fleet took 45 s to stop. The services and node-agent close while the broker ({@code last})
     * is still up: without it their Kafka clients would wait out their close timeouts.
     */
    static void stopInWaves(List<Child> children, Child last, Duration grace) {
        List<Thread> stopping = new ArrayList<>();
        for (Child c : children) {
            if (c != last) {
                Thread t = new Thread(() -> stopOne(c, grace), "stop-" + c.name());
                t.start();
                stopping.add(t);
            }
        }
        boolean interrupted = false;
        for (Thread t : stopping) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // still wait: the broker must outlive its clients
                }
            }
        }
        if (last != null && children.contains(last)) {
            stopOne(last, grace);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** One child's stop; one that fails (a daemon's mount that will not go) is named, and the others still stop. */
    private static void stopOne(Child c, Duration grace) {
        try {
            c.stop(grace);
        } catch (RuntimeException e) {
            System.err.println("fleet: stopping " + c.name() + " failed: " + e.getMessage());
        }
    }

    /** A random bearer token (256 bits, URL-safe base64). */
    private static String newToken() {
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private void writeEnv(Map<String, String> env) throws IOException {
        StringBuilder out = new StringBuilder("# written by ./fleet up; source it: . .fleet/fleet.env\n");
        env.forEach((k, v) -> out.append("export ").append(k).append("='").append(v).append("'\n"));
        Path tmp = state.resolve("fleet.env.tmp");
        Files.writeString(tmp, out);
        Files.move(tmp, state.resolve("fleet.env"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void writePids() throws IOException {
        StringBuilder out = new StringBuilder();
        out.append(ProcessHandle.current().pid()).append('\n');
        for (Child c : children) {
            out.append(c.pid()).append('\n');
        }
        Files.writeString(state.resolve("pids"), out);
    }

    /** The jars beside this one (target/lib): they hold the Kafka broker too. */
    private String libClasspath() {
        Path lib = repoRoot.resolve("local-fleet/target/lib");
        if (!Files.isDirectory(lib)) {
            throw new FleetException("local-fleet/target/lib is missing; build first (./fleet up does: mvn -B -DskipTests package)");
        }
        return lib.toAbsolutePath() + "/*";
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
