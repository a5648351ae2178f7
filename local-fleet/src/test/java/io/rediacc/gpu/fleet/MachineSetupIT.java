package io.rediacc.gpu.fleet;

import io.rediacc.gpu.standin.StandInDockerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rdc machine setup} as an operator runs it: the real rdc jar, OpenSSH's client, a real
 * OpenSSH server on 127.0.0.1, and simulated machines (node-agent fixture roots with stand-in
 * nvidia-smi/nvidia-ctk/systemctl, repo daemons played by standin-dockerd). It checks what lands on
 * the machine and what each step says; waiting for the fleet is covered by the local fleet, which
 * prepares its machine the same way.
 */
class MachineSetupIT {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path DIR = Path.of("target/machine-setup-it").toAbsolutePath();

    static SshServer sshd;
    static Path knownHosts;

    record Result(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    @BeforeAll
    static void startSshd() throws Exception {
        Assumptions.assumeTrue(SshServer.available(), "openssh-server is not installed (apt-get install -y openssh-server)");
        deleteTree(DIR);
        sshd = SshServer.start(DIR.resolve("sshd"));
        knownHosts = sshd.knownHosts();
        keyRegistry = new KeyRegistry();
    }

    @AfterAll
    static void stopSshd() {
        if (sshd != null) {
            sshd.close();
        }
        if (keyRegistry != null) {
            keyRegistry.close();
        }
    }

    @Test
    void bareGpuMachineIsPreparedAndASecondRunChangesNothing() throws Exception {
        Path m = fixture("gpu-1", "--nvidia", "2", "--amd", "1", "--persistenced");
        String guid = UUID.randomUUID().toString();
        Path sock = DIR.resolve("gpu-1-daemon.sock");
        Path daemonJson = m.resolve("root/mnt/rediacc/mounts/" + guid + "/.rediacc/docker/config/daemon.json");
        Files.createDirectories(daemonJson.getParent());
        // a wrong daemon.json: CDI off, the toolkit's spec dir too, nvidia as the default runtime
        Files.writeString(daemonJson, """
                {"log-level": "warn", "features": {"cdi": false, "containerd-snapshotter": true},
                 "cdi-spec-dirs": ["/etc/cdi", "/var/run/cdi"], "default-runtime": "nvidia",
                 "runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}}
                """);
        manifest(m, "gpu-1", """
                  - name: train
                    guid: %s
                    listen: unix://%s
                    daemon: unix://%s
                    daemonConfig: /mnt/rediacc/mounts/%s/.rediacc/docker/config/daemon.json
                    daemonRun: /mnt/rediacc/mounts/%s/.rediacc/docker/run
                    daemonService: rediacc-docker-train.service
                """.formatted(guid, DIR.resolve("gpu-1-gate.sock"), sock, guid, guid));
        Path config = config("gpu-1", m, knownHosts);
        try (StandInDockerd daemon = StandInDockerd.startUnix(sock)) {
            Result first = rdc(config, "machine", "setup", "gpu-1", "--wait", "0");
            assertThat(first.exit()).as(first.all()).isZero();
            assertThat(first.out()).contains("ssh: connected, host key verified", "package: changed", "node-agent setup: changed",
                    "daemon train: changed", "features.cdi false -> true", "default-runtime \"nvidia\" removed",
                    "restarted rediacc-docker-train.service", "persistenced socket: changed", "services: changed");
            // the machine's key was made there and registered with both services before prepare started them,
            // and grant-service's key installed for the gate
            assertThat(first.out()).contains("machine key: changed", "key registration: changed", "grants key: changed");
            assertThat(m.resolve("root/etc/rediacc/gpu/machine-key.pem")).exists();
            assertThat(keyRegistry.keys.get("gpu-1")).contains("publicKey");
            assertThat(m.resolve("root/etc/rediacc/gate/grant-service-key.pub")).hasContent(KeyRegistry.SERVICE_PEM.strip());
            // what landed on the machine
            // at the places the rediacc-gpu-node .deb uses (the units' ExecStart names the launchers)
            assertThat(m.resolve("root/usr/lib/rediacc-gpu-node/bin/node-agent")).isExecutable();
            assertThat(m.resolve("root/usr/share/rediacc-gpu-node/docker-gate/quarkus-run.jar")).exists();
            assertThat(Files.readString(m.resolve("root/lib/systemd/system/docker-gate.service")))
                    .contains("ExecStart=/usr/lib/rediacc-gpu-node/bin/docker-gate");
            assertThat(m.resolve("root/etc/cdi/nvidia.yaml")).exists();
            assertThat(m.resolve("root/etc/cdi/rediacc.io-amd.yaml")).exists();
            String inventory = Files.readString(m.resolve("root/etc/rediacc/gpu/inventory.json"));
            assertThat(inventory).contains("\"vendor\" : \"amd\"").contains("nvidia.com/gpu=1").contains("\"train\"");
            String merged = Files.readString(daemonJson);
            assertThat(merged).contains("\"cdi\" : true", "\"containerd-snapshotter\" : true", "\"log-level\" : \"warn\"",
                    "\"nvidia-container-runtime\"").doesNotContain("default-runtime", "/var/run/cdi");
            assertThat(merged.replaceAll("\\s", "")).contains("\"cdi-spec-dirs\":[\"/etc/cdi\"]");
            try (Stream<Path> s = Files.list(daemonJson.getParent())) {
                assertThat(s.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("daemon.json.bak-"));
            }
            assertThat(m.resolve("root/mnt/rediacc/mounts/" + guid + "/.rediacc/docker/run/nvidia-persistenced/socket")).exists();
            assertThat(calls(m, "systemctl")).contains("restart rediacc-docker-train.service")
                    .anyMatch(l -> l.startsWith("enable --now") && l.contains("docker-gate.service") && l.contains("node-agent.service"));

            Result second = rdc(config, "machine", "setup", "gpu-1", "--wait", "0");
            assertThat(second.exit()).as(second.all()).isZero();
            assertThat(second.out()).contains("package: unchanged", "machine key: unchanged", "key registration: unchanged",
                    "grants key: unchanged", "node-agent setup: unchanged", "daemon train: unchanged",
                    "persistenced socket: unchanged", "services: unchanged").doesNotContain(": changed");
            assertThat(calls(m, "systemctl").stream().filter(l -> l.startsWith("restart"))).hasSize(1);
        }
    }

    @Test
    void machineWithoutGpuGetsAnInventoryWithEmptyLists() throws Exception {
        Path m = fixture("plain-1");
        Result r = rdc(config("plain-1", m, knownHosts), "machine", "setup", "plain-1", "--wait", "0");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).contains("node-agent setup: changed - 0 GPU(s), 0 CDI device(s)", "repo daemons: unchanged");
        String inventory = Files.readString(m.resolve("root/etc/rediacc/gpu/inventory.json")).replaceAll("\\s", "");
        assertThat(inventory).contains("\"gpus\":[]", "\"cdiDevices\":[]");
        assertThat(m.resolve("root/etc/cdi/nvidia.yaml")).doesNotExist();
    }

    @Test
    void toolkitFalseGeneratesNoNvidiaSpecAndWslGeneratesInWslMode() throws Exception {
        Path off = fixture("gpu-off", "--nvidia", "1");
        Result r = rdc(config("gpu-off", off, knownHosts), "machine", "setup", "gpu-off", "--install-nvidia-toolkit", "false", "--wait", "0");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).contains("NVIDIA toolkit disabled");
        assertThat(off.resolve("root/etc/cdi/nvidia.yaml")).doesNotExist();
        assertThat(calls(off, "apt-get")).isEmpty();

        Path wsl = fixture("wsl-1", "--nvidia", "1", "--wsl");
        Result w = rdc(config("wsl-1", wsl, knownHosts), "machine", "setup", "wsl-1", "--wait", "0");
        assertThat(w.exit()).as(w.all()).isZero();
        // nvidia-smi is found in /usr/lib/wsl/lib (not on the search path), the spec generated in WSL mode
        assertThat(wsl.resolve("root/usr/lib/wsl/lib/nvidia-smi")).exists();
        assertThat(wsl.resolve("bin/nvidia-smi")).doesNotExist();
        assertThat(calls(wsl, "nvidia-ctk")).anyMatch(l -> l.contains("cdi generate") && l.contains("--mode=wsl"));
        assertThat(Files.readString(wsl.resolve("root/etc/cdi/nvidia.yaml"))).contains("/dev/dxg");
    }

    @Test
    void unknownHostKeyIsRefusedWithItsFingerprintAndUnreachableHostIsItsOwnFailure() throws Exception {
        Path m = fixture("gpu-unknown", "--nvidia", "1");
        Result r = rdc(config("gpu-unknown", m, sshd.emptyKnownHosts()), "machine", "setup", "gpu-unknown", "--wait", "0");
        assertThat(r.exit()).as(r.all()).isEqualTo(6);
        String fingerprint = run(List.of("ssh-keygen", "-lf", sshd.dir.resolve("ssh_host_ed25519_key.pub").toString())).out().split("\\s+")[1];
        assertThat(r.err()).contains("is not known", fingerprint, "ssh-keyscan -p " + sshd.port + " 127.0.0.1 >> ");
        assertThat(m.resolve("root/usr/share/rediacc-gpu-node")).doesNotExist();

        int closed;
        try (var s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Result u = rdc(config("gpu-unknown", m, knownHosts), "machine", "setup", "gpu-unknown", "--host", "root@127.0.0.1:" + closed,
                "--wait", "0");
        assertThat(u.exit()).as(u.all()).isEqualTo(1);
        assertThat(u.err()).contains("cannot reach root@127.0.0.1:" + closed + " over SSH");
    }

    // ---------------------------------------------------------------------------------------------

    private static Path fixture(String name, String... options) throws Exception {
        Path dir = DIR.resolve(name);
        List<String> args = new ArrayList<>(List.of("fixture", dir.toString(), "--hostname", name));
        args.addAll(Arrays.asList(options));
        Result r = nodeAgent(args);
        assertThat(r.exit()).as(r.all()).isZero();
        return dir;
    }

    private static void manifest(Path machine, String name, String repos) throws IOException {
        Path f = machine.resolve("root/etc/rediacc/gate/repos.yaml");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "machine: " + name + "\nrepos:\n" + repos);
    }

    private static Path config(String name, Path machine, Path known) throws IOException {
        Path f = DIR.resolve(name + "-rdc.yaml");
        Files.writeString(f, """
                machines:
                  %s:
                    host: %s
                    identity: %s
                    knownHosts: %s
                    root: %s
                    path: %s
                """.formatted(name, sshd.address(), sshd.userKey, known, machine.resolve("root"), machine.resolve("bin")));
        return f;
    }

    private static List<String> calls(Path machine, String tool) throws IOException {
        Path log = machine.resolve("calls/" + tool + ".log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    private static Result rdc(Path config, String... args) throws Exception {
        // the operator's launcher, as installed (cli/rdc runs cli/target/rdc.jar)
        List<String> cmd = new ArrayList<>(List.of(REPO.resolve("cli/rdc").toString(), "--config", config.toString()));
        cmd.addAll(Arrays.asList(args));
        return run(cmd, Map.of("RDC_GRANT_URL", keyRegistry.url(), "RDC_INVENTORY_URL", keyRegistry.url(),
                "RDC_TOKEN", "machine-setup-it-token"));
    }

    /**
     * Both services' key registration as rdc machine setup calls it (PUT /api/v1/machines/{m}/key): the first
     * key of a machine is registered (changed), the same key again changes nothing, another key is 409.
     */
    static final class KeyRegistry implements AutoCloseable {
        static final String SERVICE_PEM = io.rediacc.gpu.contracts.signing.SigningKeys.publicPem(
                io.rediacc.gpu.contracts.signing.SigningKeys.generate().getPublic());
        final Map<String, String> keys = new java.util.concurrent.ConcurrentHashMap<>();
        final com.sun.net.httpserver.HttpServer server;

        KeyRegistry() throws IOException {
            server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/api/v1/signing-key", exchange -> {
                byte[] bytes = ("{\"keyId\":\"service-key\",\"publicKey\":\"" + SERVICE_PEM.replace("\n", "\\n") + "\"}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, bytes.length);
                exchange.getResponseBody().write(bytes);
                exchange.close();
            });
            server.createContext("/api/v1/machines/", exchange -> {
                String machine = exchange.getRequestURI().getPath().split("/")[4];
                String body = new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                String previous = keys.putIfAbsent(machine, body);
                int status = previous == null || previous.equals(body) ? 200 : 409;
                String answer = status == 409 ? "{\"error\":\"machine-key-registered\",\"detail\":\"another key\",\"hint\":\"--rekey\"}"
                        : "{\"machine\":\"" + machine + "\",\"keyId\":\"k-" + Integer.toHexString(body.hashCode())
                        + "\",\"changed\":" + (previous == null) + "}";
                byte[] bytes = answer.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, bytes.length);
                exchange.getResponseBody().write(bytes);
                exchange.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    static KeyRegistry keyRegistry;

    private static Result nodeAgent(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("java", "-XX:TieredStopAtLevel=1", "-jar",
                REPO.resolve("node-agent/target/quarkus-app/quarkus-run.jar").toString()));
        cmd.addAll(args);
        return run(cmd);
    }

    private static Result run(List<String> cmd) throws Exception {
        return run(cmd, Map.of());
    }

    private static Result run(List<String> cmd, Map<String, String> env) throws Exception {
        Path out = Files.createTempFile(DIR, "out", ".txt");
        Path err = Files.createTempFile(DIR, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("timed out: " + cmd);
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
