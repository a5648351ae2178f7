package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.dockerd.Dockerd;
import io.rediacc.gpu.dockerd.DockerdKit;
import io.rediacc.gpu.dockerd.GpuCard;
import io.rediacc.gpu.standin.machine.FixtureRoot;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The one simulated GPU machine of the local fleet: a fixture root built by standin-machine's {@code FixtureRoot}
 * (2 NVIDIA GPUs, 1 AMD GPU, their render nodes, stand-in nvidia-smi and nvidia-ctk), a repos
 * manifest with two repos — {@code gpu-a} and {@code gpu-a-fork}, a fork of it — each with a gate
 * socket and its own Docker daemon behind it (real where it can be, see {@link #startDaemons}), and
 * its own mount under the root as its only host path root ({@code hostPaths}).
 */
final class LocalMachine {

    /** One repo: its identity and the two sockets around its gate. */
    record Repo(String name, String guid, String forkOf, String forkOfName, Path gateSocket, Path daemonSocket) {
        String envName() {
            return name.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
        }
    }

    private final Path dir;
    private final String machine;
    private final List<Repo> repos;

    private LocalMachine(Path dir, String machine, List<Repo> repos) {
        this.dir = dir;
        this.machine = machine;
        this.repos = repos;
    }

    /** Builds the machine on the first run; a second run reuses its root, its repo GUIDs and its state. */
    static LocalMachine prepare(Path dir, String machine, Path repoRoot) throws IOException {
        if (!Files.exists(dir.resolve("root"))) {
            Files.createDirectories(dir.getParent());
            FixtureRoot.builder(dir).nvidia(2).amd(1).hostname(machine).build();
        }
        Properties ids = new Properties();
        Path idFile = dir.resolve("repo-guids.properties");
        if (Files.exists(idFile)) {
            try (var r = Files.newBufferedReader(idFile)) {
                ids.load(r);
            }
        } else {
            ids.setProperty("gpu-a", UUID.randomUUID().toString());
            ids.setProperty("gpu-a-fork", UUID.randomUUID().toString());
            try (var w = Files.newBufferedWriter(idFile)) {
                ids.store(w, "repo GUIDs of the simulated machine: a repo's identity, kept across runs");
            }
        }
        Path run = dir.resolve("run");
        Files.createDirectories(run);
        List<Repo> repos = List.of(
                new Repo("gpu-a", ids.getProperty("gpu-a"), null, null, run.resolve("gpu-a.sock"), run.resolve("gpu-a.docker.sock")),
                new Repo("gpu-a-fork", ids.getProperty("gpu-a-fork"), ids.getProperty("gpu-a"), "gpu-a",
                        run.resolve("gpu-a-fork.sock"), run.resolve("gpu-a-fork.docker.sock")));
        LocalMachine m = new LocalMachine(dir, machine, repos);
        m.writeManifest();
        return m;
    }

    Path root() {
        return dir.resolve("root");
    }

    List<Repo> repos() {
        return repos;
    }

    Path manifest() {
        return root().resolve("etc/rediacc/gate/repos.yaml");
    }

    /** A repo's files on the simulated machine: {@code <root>/mnt/rediacc/mounts/<guid>} (the datastore's default layout). */
    Path repoMount(Repo r) {
        return root().resolve("mnt/rediacc/mounts").resolve(r.guid());
    }

    private void writeManifest() throws IOException {
        StringBuilder y = new StringBuilder("# repos served by this machine's docker-gate (read by node-agent too)\n");
        y.append("machine: ").append(machine).append('\n').append("repos:\n");
        for (Repo r : repos) {
            y.append("  - name: ").append(r.name()).append('\n');
            y.append("    guid: ").append(r.guid()).append('\n');
            if (r.forkOf() != null) {
                y.append("    forkOf: ").append(r.forkOf()).append('\n');
            }
            y.append("    listen: unix://").append(r.gateSocket()).append('\n');
            y.append("    daemon: unix://").append(r.daemonSocket()).append('\n');
            // The repo's files, as on a Rediacc machine: its only host path root; its daemon's data root
            // and configuration live inside it and stay refused to the repo.
            Path mount = repoMount(r);
            Files.createDirectories(mount.resolve(".rediacc/docker/config"));
            Files.createDirectories(mount.resolve(".rediacc/docker/data"));
            y.append("    hostPaths: [").append(mount).append("]\n");
            y.append("    daemonConfigDir: ").append(mount.resolve(".rediacc/docker/config")).append('\n');
            y.append("    daemonDataRoot: ").append(mount.resolve(".rediacc/docker/data")).append('\n');
            // the product's layout: the daemon's config inside the repo's mount (rdc machine setup configures it)
            y.append("    daemonConfig: ").append(daemonConfig(r)).append('\n');
            y.append("    daemonService: rediacc-docker-").append(r.name()).append(".service\n");
            Path config = root().resolve(daemonConfig(r).substring(1));
            if (!Files.exists(config)) {
                Files.createDirectories(config.getParent());
                Files.writeString(config, "{\n  \"bridge\": \"none\",\n  \"iptables\": false\n}\n");
            }
        }
        // checked with the reader of gate, agent and setup before it is put in place: a mistake here fails
        // ./fleet up with the reader's message instead of a gate that will not start
        io.rediacc.gpu.contracts.manifest.ManifestLoader.parse(y.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Files.createDirectories(manifest().getParent());
        Path tmp = manifest().resolveSibling("repos.yaml.tmp");
        Files.writeString(tmp, y);
        Files.move(tmp, manifest(), java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        keepGateFilesPrivate();
    }

    /**
     * The gate refuses to start when its manifest or state directory (or a directory above them) is
     * writable by group or others (docker-gate README, "The gate's files"); under a umask of 002 the
     * fleet's own directories would be. Directories above {@code .fleet/} are the checkout's.
     */
    private void keepGateFilesPrivate() throws IOException {
        Files.createDirectories(dir.resolve("gate-state"));
        List<Path> paths = new ArrayList<>(List.of(dir.resolve("gate-state")));
        for (Path p = manifest(); p != null && p.startsWith(dir.getParent()); p = p.getParent()) {
            paths.add(p);
        }
        for (Path p : paths) {
            var perms = new java.util.HashSet<>(Files.getPosixFilePermissions(p));
            if (perms.removeAll(List.of(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE,
                    java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE))) {
                Files.setPosixFilePermissions(p, perms);
            }
        }
    }

    static String daemonConfig(Repo r) {
        return "/mnt/rediacc/mounts/" + r.guid() + "/.rediacc/docker/config/daemon.json";
    }

    /**
     * rdc's config file naming this machine: its SSH address on the fleet's sshd, the key, the
     * known_hosts that trusts the sshd's host key, and (a simulated machine) its root and stand-ins.
     */
    Path writeRdcConfig(Path file, SshServer sshd) throws IOException {
        Files.writeString(file, """
                # written by ./fleet up: where rdc machine setup reaches the simulated machine
                machines:
                  %s:
                    host: %s
                    identity: %s
                    knownHosts: %s
                    root: %s
                    path: %s
                """.formatted(machine, sshd.address(), sshd.userKey, sshd.knownHosts(), root(), dir.resolve("bin")));
        return file;
    }

    /**
     * {@code rdc machine setup} over the fleet's sshd, as an operator runs it; its progress lines go
     * to {@code say}. It waits until the fleet sees the machine ready.
     */
    void setupOverSsh(Path repoRoot, Path rdcConfig, Map<String, String> rdcEnv, java.util.function.Consumer<String> say)
            throws IOException {
        List<String> cmd = List.of(repoRoot.resolve("cli/rdc").toString(), "--config", rdcConfig.toString(), "machine", "setup", machine);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(rdcEnv);
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
                say.accept("  " + line);
            }
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new FleetException("rdc machine setup " + machine + " failed (exit " + (p.isAlive() ? "none" : p.exitValue()) + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetException("interrupted");
        }
    }

    /**
     * {@code node-agent setup}: detection, CDI specs and inventory.json, before the real daemons start
     * (they read the specs; their image names the cards the inventory lists).
     */
    void runSetup(Path repoRoot, Path logs) throws IOException {
        run(repoRoot, logs.resolve("node-agent-setup.log"), List.of("setup"), agentBase());
    }

    /** The machine's Kafka login as rdc machine setup wrote it ({@code /etc/rediacc/gpu/kafka.env} under the root). */
    io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.Login kafkaLogin() {
        Path file = root().resolve(io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.PATH.substring(1));
        try {
            return io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.parse(Files.readString(file))
                    .orElseThrow(() -> new FleetException(file + " holds no Kafka login"));
        } catch (IOException e) {
            throw new FleetException("rdc machine setup wrote no Kafka login: " + e.getMessage());
        }
    }

    Map<String, Object> agentConfig(String kafka) {
        Map<String, Object> c = new LinkedHashMap<>(agentBase());
        c.put("kafka.bootstrap.servers", kafka);
        c.put("agent.heartbeat", "30s");
        return c;
    }

    private Map<String, Object> agentBase() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("agent.root", root());
        c.put("agent.path", dir.resolve("bin"));
        c.put("agent.machine", machine);
        // the repos manifest is read at its default place under the root: /etc/rediacc/gate/repos.yaml
        return c;
    }

    Map<String, Object> gateConfig(String kafka, int port) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("quarkus.http.port", port);
        c.put("kafka.bootstrap.servers", kafka);
        c.put("gate.manifest", manifest());
        c.put("gate.state-dir", dir.resolve("gate-state"));
        c.put("gate.id", machine + "-gate");
        // the machine's key pair, shared with node-agent (the default path beside the manifest names the same file)
        c.put("gate.signing-key", root().resolve("etc/rediacc/gpu/machine-key.pem"));
        // records count only once setup registered the machine's key: a short heartbeat makes the gate known soon after
        c.put("gate.heartbeat", "10s");
        // the repo daemons (real or stand-in) read the simulated machine's specs, not the host's /etc/cdi
        c.put("gate.daemon-check.cdi-spec-dirs", root().resolve("etc/cdi"));
        return c;
    }

    /** The repos' daemons as started: real or stand-in, what to stop, and the line that says which. */
    record Daemons(boolean real, List<Child> children, String summary, Path dockerConfig) {
    }

    /**
     * The repos' Docker daemons: one real dockerd per repo (Debian's, module real-dockerd), reading
     * the machine's CDI specs ({@code root/etc/cdi}) and holding the {@code ubuntu:24.04} image whose
     * {@code nvidia-smi} names the machine's cards — where real daemons can run (root, packages
     * cached or reachable). Elsewhere, or with {@code FLEET_DAEMONS=standin}, one stand-in process
     * serving every repo's socket, and the summary says why.
     */
    Daemons startDaemons(Path logs, String classpath) throws IOException {
        String why = "standin".equals(System.getenv("FLEET_DAEMONS")) ? "FLEET_DAEMONS=standin"
                : DockerdKit.unavailableReason().orElse(null);
        if (why == null) {
            DockerdKit kit = DockerdKit.prepare();
            List<GpuCard> cards = nvidiaCards();
            List<Child> started = new ArrayList<>();
            try {
                for (Repo r : repos) {
                    Dockerd d = Dockerd.start(kit, dir.resolve("dockerd").resolve(r.name()), r.daemonSocket(),
                            List.of(root().resolve("etc/cdi")));
                    started.add(new RepoDaemon("dockerd-" + r.name(), d));
                    BaseImage.importInto(d, cards);
                }
            } catch (IOException | RuntimeException e) {
                started.forEach(c -> c.stop(Duration.ofSeconds(10)));
                throw new FleetException("a repo's dockerd did not start: " + e.getMessage());
            }
            Path config = kit.dockerConfig(dir.getParent().resolve("docker-config"));
            return new Daemons(true, started, "repo daemons real dockerd, one per repo (" + kit.describe() + ")"
                    + kit.composeProblem().map(p -> "; docker compose: " + p).orElse(""), config);
        }
        // C1 only, as the fleet's other children (Services): a stand-in serving a handful of test requests
        List<String> cmd = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", classpath,
                "io.rediacc.gpu.standin.StandInDockerd", "--cdi-spec-dir=" + root().resolve("etc/cdi")));
        for (Repo r : repos) {
            Files.deleteIfExists(r.daemonSocket());
            cmd.add(r.daemonSocket().toString());
        }
        ChildProcess daemons = ChildProcess.start("standin-dockerd", cmd, dir, logs, Map.of());
        daemons.awaitReady(() -> repos.stream().allMatch(r -> Files.exists(r.daemonSocket())), ChildProcess.START_BOUND);
        return new Daemons(false, List.of(daemons), "repo daemons standin-dockerd, a recording stand-in (real dockerd unavailable: "
                + why + ")", null);
    }

    /** What a daemon of an earlier, killed fleet left (processes, mounts): gone after this. */
    static void cleanUpDaemons(Path machineDir) throws IOException {
        Path daemons = machineDir.resolve("dockerd");
        if (Files.isDirectory(daemons)) {
            try (var dirs = Files.list(daemons)) {
                for (Path d : dirs.toList()) {
                    Dockerd.cleanUpAfter(d);
                }
            }
        }
    }

    /** The machine's NVIDIA cards as its inventory (written by setup) names them: the image's nvidia-smi lists them. */
    private List<GpuCard> nvidiaCards() throws IOException {
        MachineInventory inv = EventJson.fromBytes(Files.readAllBytes(root().resolve("etc/rediacc/gpu/inventory.json")),
                MachineInventory.class);
        return inv.gpus().stream().filter(g -> "nvidia".equalsIgnoreCase(g.vendor()))
                .map(g -> new GpuCard(g.index(), g.name(), g.uuid())).toList();
    }

    /**
     * Waits until both central services know this machine and its repos (the agent published its
     * inventory and both consumed it), so the first {@code rdc} command after "fleet ready" works.
     */
    void awaitInventory(ChildProcess agent, String inventoryUrl, String grantUrl, String token, Duration timeout) {
        HttpClient http = HttpClient.newHttpClient();
        agent.awaitReady(() -> knows(http, inventoryUrl + "/api/v1/machines/" + machine, token)
                && repos.stream().allMatch(r -> knows(http, grantUrl + "/api/v1/repos/" + r.name() + "/grants?machine=" + machine, token))
                && gateKnown(http, grantUrl + "/api/v1/machines/" + machine + "/grants", token),
                timeout);
    }

    /** grant-service knows a live gate of the machine (its signed status counts once the key is registered). */
    private static boolean gateKnown(HttpClient http, String url, String token) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token)
                    .build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"gateId\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean knows(HttpClient http, String url, String token) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void run(Path repoRoot, Path log, List<String> args, Map<String, Object> config) throws IOException {
        Path jar = repoRoot.resolve("node-agent/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new FleetException(jar + " is missing; build first (./fleet up does: mvn -B -DskipTests package)");
        }
        List<String> cmd = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        config.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            if (!p.waitFor(ChildProcess.START_BOUND.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new FleetException("node-agent " + String.join(" ", args) + " failed; see " + log + ":\n"
                        + String.join("\n", Files.readAllLines(log).stream().skip(Math.max(0, Files.readAllLines(log).size() - 20)).toList()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetException("interrupted");
        }
    }
}
