package io.rediacc.gpu.fleet;

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
 * The one simulated GPU machine of the local fleet: a fixture root built by {@code node-agent fixture}
 * (2 NVIDIA GPUs, 1 AMD GPU, their render nodes, stand-in nvidia-smi and nvidia-ctk), a repos
 * manifest with two repos — {@code gpu-a} and {@code gpu-a-fork}, a fork of it — each with a gate
 * socket and a stand-in Docker daemon behind it.
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
            Path logs = dir.getParent().resolve("logs");
            Files.createDirectories(logs);
            run(repoRoot, logs.resolve("node-agent-fixture.log"), List.of("fixture", dir.toString(), "--nvidia", "2",
                    "--amd", "1", "--hostname", machine), Map.of());
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
        }
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

    /** {@code node-agent setup}: detection, CDI specs and inventory.json, on every start (as on a real machine's boot). */
    void runSetup(Path repoRoot, Path logs) throws IOException {
        run(repoRoot, logs.resolve("node-agent-setup.log"), List.of("setup"), agentBase());
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
        return c;
    }

    /**
     * The repos' Docker daemons: one stand-in process serving every repo's daemon socket (there is
     * no Docker engine here; on a machine with one, point the manifest's {@code daemon} at it).
     */
    ChildProcess startDaemons(Path logs, String classpath) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-Xmx128m", "-XX:+UseSerialGC", "-cp", classpath,
                "io.rediacc.gpu.standin.StandInDockerd"));
        for (Repo r : repos) {
            Files.deleteIfExists(r.daemonSocket());
            cmd.add(r.daemonSocket().toString());
        }
        ChildProcess daemons = ChildProcess.start("standin-dockerd", cmd, dir, logs, Map.of());
        daemons.awaitReady(() -> repos.stream().allMatch(r -> Files.exists(r.daemonSocket())), Duration.ofSeconds(60));
        return daemons;
    }

    /**
     * Waits until both central services know this machine and its repos (the agent published its
     * inventory and both consumed it), so the first {@code rdc} command after "fleet ready" works.
     */
    void awaitInventory(ChildProcess agent, String inventoryUrl, String grantUrl, String token, Duration timeout) {
        HttpClient http = HttpClient.newHttpClient();
        agent.awaitReady(() -> knows(http, inventoryUrl + "/api/v1/machines/" + machine, token)
                && repos.stream().allMatch(r -> knows(http, grantUrl + "/api/v1/repos/" + r.name() + "/grants?machine=" + machine, token)),
                timeout);
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
            if (!p.waitFor(3, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new FleetException("node-agent " + String.join(" ", args) + " failed; see " + log + ":\n"
                        + String.join("\n", Files.readAllLines(log).stream().skip(Math.max(0, Files.readAllLines(log).size() - 20)).toList()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetException("interrupted");
        }
    }
}
