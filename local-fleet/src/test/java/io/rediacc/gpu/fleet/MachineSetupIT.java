package io.rediacc.gpu.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.dockerd.Dockerd;
import io.rediacc.gpu.dockerd.DockerdKit;
import io.rediacc.gpu.dockerd.DockerdUnavailable;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.standin.machine.FixtureCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
 * {@code rdc machine setup} as an operator runs it: the real rdc jar, OpenSSH's client, the fleet's
 * embedded SSH server on 127.0.0.1 ({@link SshServer}: no SSH server need be installed), and simulated
 * machines (standin-machine fixture roots with stand-in nvidia-smi/nvidia-ctk/systemctl, repo daemons played
 * by standin-dockerd or a real dockerd), with
 * the rediacc-gpu-node .deb the build made (deploy/debian/target). It checks what lands on the
 * machine and what each step says; waiting for the fleet, and a driver update, are covered by the
 * local fleet (SeedStoryIT), which prepares its machine the same way.
 */
class MachineSetupIT {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path DIR = Path.of("target/machine-setup-it").toAbsolutePath();

    static final ObjectMapper JSON = new ObjectMapper();
    static SshServer sshd;
    static Path knownHosts;

    record Result(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    @BeforeAll
    static void startSshd() throws Exception {
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
        try (HostPackageLock hostPackage = HostPackageLock.take(); StandInDockerd daemon = StandInDockerd.startUnix(sock)) {
            String hostPackageBefore = hostPackageStatus();
            Result first = rdc(config, "machine", "setup", "gpu-1", "--wait", "0");
            assertThat(first.exit()).as(first.all()).isZero();
            assertThat(first.out()).contains("ssh: connected, host key verified",
                    "package: changed - installed rediacc-gpu-node ", "unpacked under " + m.resolve("root"), "node-agent setup: changed",
                    "daemon train: changed", "features.cdi false -> true", "default-runtime \"nvidia\" removed",
                    "restarted rediacc-docker-train.service", "persistenced socket: changed", "services: changed");
            // the machine's key was made there and registered with both services before prepare started them,
            // and grant-service's key installed for the gate
            assertThat(first.out()).contains("machine key: changed", "key registration: changed", "grants key: changed");
            // its own Kafka user, before prepare started the services: the password made here, kept on the machine
            // (0600) and sent to inventory-service
            assertThat(first.out()).contains("kafka user: changed - machine-gpu-1 created");
            Path kafkaEnv = m.resolve("root/etc/rediacc/gpu/kafka.env");
            assertThat(Files.getPosixFilePermissions(kafkaEnv)).isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            var login = io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.parse(Files.readString(kafkaEnv)).orElseThrow();
            assertThat(login.username()).isEqualTo("machine-gpu-1");
            assertThat(keyRegistry.kafkaUsers.get("gpu-1")).contains(login.password());
            assertThat(first.out().indexOf("kafka user: changed")).isLessThan(first.out().indexOf("services: changed"));
            assertThat(m.resolve("root/etc/rediacc/gpu/machine-key.pem")).exists();
            assertThat(keyRegistry.keys.get("gpu-1")).contains("publicKey");
            assertThat(m.resolve("root/etc/rediacc/gate/grant-service-key.pub")).hasContent(KeyRegistry.SERVICE_PEM.strip());
            // what landed on the machine: the rediacc-gpu-node .deb's files (its sysusers.d entry too),
            // recorded where dpkg records them; the test host's own / and dpkg database untouched
            assertThat(m.resolve("root/usr/lib/rediacc-gpu-node/bin/node-agent")).isExecutable();
            assertThat(m.resolve("root/usr/lib/sysusers.d/rediacc-gpu-node.conf")).exists();
            assertThat(Files.readAllLines(m.resolve("root/var/lib/dpkg/info/rediacc-gpu-node.list")))
                    .contains("/usr/lib/rediacc-gpu-node/bin/node-agent", "/etc/rediacc/gpu/node-agent.env");
            assertThat(m.resolve("root/var/lib/dpkg/info/rediacc-gpu-node.md5sums")).isNotEmptyFile();
            assertThat(hostPackageStatus()).isEqualTo(hostPackageBefore);
            hostPackage.close();
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
            // the machine's /etc/cdi as its daemons (on this host) see it
            assertThat(merged.replaceAll("\\s", "")).contains("\"cdi-spec-dirs\":[\"" + m.resolve("root/etc/cdi") + "\"]");
            try (Stream<Path> s = Files.list(daemonJson.getParent())) {
                assertThat(s.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("daemon.json.bak-"));
            }
            assertThat(m.resolve("root/mnt/rediacc/mounts/" + guid + "/.rediacc/docker/run/nvidia-persistenced/socket")).exists();
            assertThat(calls(m, "systemctl")).contains("restart rediacc-docker-train.service")
                    .anyMatch(l -> l.startsWith("enable --now") && l.contains("docker-gate.service") && l.contains("node-agent.service"));

            Result second = rdc(config, "machine", "setup", "gpu-1", "--wait", "0");
            assertThat(second.exit()).as(second.all()).isZero();
            assertThat(second.out()).contains("package: unchanged", "machine key: unchanged", "key registration: unchanged",
                    "kafka user: unchanged - machine-gpu-1 logs in with the password in /etc/rediacc/gpu/kafka.env",
                    "grants key: unchanged", "node-agent setup: unchanged", "daemon train: unchanged",
                    "persistenced socket: unchanged", "services: unchanged").doesNotContain(": changed");
            assertThat(calls(m, "systemctl").stream().filter(l -> l.startsWith("restart"))).hasSize(1);
            assertThat(io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.parse(Files.readString(kafkaEnv))).contains(login);

            // another build of the package (dpkg's record of its files differs): reinstalled, the
            // operator's edited conffile kept, the files of the installed build replaced
            Path env = m.resolve("root/etc/rediacc/gpu/node-agent.env");
            Files.writeString(env, Files.readString(env) + "AGENT_MACHINE=gpu-1\n");
            Path md5sums = m.resolve("root/var/lib/dpkg/info/rediacc-gpu-node.md5sums");
            Files.writeString(md5sums, "0123456789abcdef0123456789abcdef  usr/share/rediacc-gpu-node/old-build.jar\n");
            Files.writeString(m.resolve("root/usr/lib/rediacc-gpu-node/bin/node-agent"), "#!/bin/sh\nexit 9\n");
            Result third = rdc(config, "machine", "setup", "gpu-1", "--wait", "0");
            assertThat(third.exit()).as(third.all()).isZero();
            assertThat(third.out()).contains("package: changed - reinstalled (another build) rediacc-gpu-node", "node-agent setup: unchanged");
            assertThat(Files.readString(env)).endsWith("AGENT_MACHINE=gpu-1\n");
            assertThat(Files.readString(md5sums)).doesNotContain("old-build.jar");
        }
    }

    /**
     * A real dockerd (Debian's, module real-dockerd) started on the repo's daemon.json: a wrong one
     * (CDI off, the toolkit's spec directory, another default runtime) is fixed by setup, which has
     * the daemon restarted through its unit; the restarted daemon's {@code GET /info} shows the
     * machine's CDI directory alone and runc. A second run restarts nothing. The unit is played by
     * this test: the machine's systemctl asks for the restart, the test restarts the daemon.
     */
    @Test
    void aRealDockerdRunsOnTheDaemonJsonSetupWroteAndIsRestartedOnlyWhenItChanged() throws Exception {
        DockerdKit kit;
        try {
            kit = DockerdKit.prepare();
        } catch (DockerdUnavailable e) {
            throw new AssertionError("this test needs real Docker daemons: " + e.getMessage(), e);
        }
        Path m = fixture("real-1", "--nvidia", "1");
        String guid = UUID.randomUUID().toString();
        Path sock = DIR.resolve("real-1-daemon.sock");
        Path daemonJson = m.resolve("root/mnt/rediacc/mounts/" + guid + "/.rediacc/docker/config/daemon.json");
        Files.createDirectories(daemonJson.getParent());
        ObjectNode wrong = (ObjectNode) JSON.readTree(Dockerd.daemonJson(List.of(Path.of("/etc/cdi"), Path.of("/var/run/cdi"))));
        ((ObjectNode) wrong.get("features")).put("cdi", false);
        wrong.put("default-runtime", "other");
        wrong.putObject("runtimes").putObject("other").put("path", "/usr/bin/runc");
        Files.writeString(daemonJson, JSON.writeValueAsString(wrong));
        manifest(m, "real-1", """
                  - name: real
                    guid: %s
                    listen: unix://%s
                    daemon: unix://%s
                    daemonConfig: /mnt/rediacc/mounts/%s/.rediacc/docker/config/daemon.json
                    daemonService: rediacc-docker-real.service
                """.formatted(guid, DIR.resolve("real-1-gate.sock"), sock, guid));
        // the machine's systemctl: a restart of the daemon's unit is done by this test, then recorded as usual. The
        // two ends wait on named pipes, not on timed polls: the script asks on `requests` and blocks reading its
        // answer; the unit thread below blocks reading `requests`. Each side opens its reading end read-write (never
        // blocks, never sees end-of-file), so a side that is gone leaves the other's write in the pipe, not hanging.
        Path units = Files.createDirectories(DIR.resolve("real-1-units"));
        Path requests = units.resolve("requests");
        Path answers = units.resolve("answers");
        assertThat(run(List.of("mkfifo", requests.toString(), answers.toString())).exit()).isZero();
        Files.writeString(units.resolve("systemctl"), """
                #!/bin/sh
                # (node-agent runs its tools with the machine's search path only)
                PATH=/usr/bin:/bin:$PATH
                if [ "$1" = restart ] && [ "$2" = rediacc-docker-real.service ]; then
                  exec 3<>'%s'
                  echo restart > '%s'
                  read -r answer <&3
                  exec 3<&-
                  [ "$answer" = done ] || { echo "the test's unit failed to restart the daemon" >&2; exit 1; }
                fi
                exec '%s' "$@"
                """.formatted(answers, requests, m.resolve("bin/systemctl")));
        Files.setPosixFilePermissions(units.resolve("systemctl"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path config = config("real-1", m, knownHosts, units + ":" + m.resolve("bin"));
        Path daemonDir = DIR.resolve("real-1-dockerd");
        Dockerd[] daemon = {Dockerd.startWithConfig(kit, daemonDir, sock, daemonJson)};
        java.util.concurrent.atomic.AtomicInteger restarts = new java.util.concurrent.atomic.AtomicInteger();
        Thread unit = new Thread(() -> {
            try (java.io.RandomAccessFile in = new java.io.RandomAccessFile(requests.toFile(), "rw")) {
                String request;
                while ((request = in.readLine()) != null && request.equals("restart")) {
                    String answer = "done";
                    try {
                        daemon[0].close();
                        daemon[0] = Dockerd.startWithConfig(kit, daemonDir, sock, daemonJson);
                        restarts.incrementAndGet();
                    } catch (Exception e) {
                        e.printStackTrace();
                        answer = "failed";
                    }
                    try (java.io.RandomAccessFile out = new java.io.RandomAccessFile(answers.toFile(), "rw")) {
                        out.write((answer + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
            } catch (IOException e) {
                e.printStackTrace();
            }
        }, "rediacc-docker-real.service");
        unit.start();
        try {
            JsonNode before = JSON.readTree(daemon[0].get("/info"));
            assertThat(before.path("CDISpecDirs")).as("CDI off before setup").isEmpty();
            assertThat(before.path("DefaultRuntime").asText()).isEqualTo("other");

            Result first = rdc(config, "machine", "setup", "real-1", "--wait", "0");
            assertThat(first.exit()).as(first.all()).isZero();
            assertThat(first.out()).contains("daemon real: changed", "features.cdi false -> true", "default-runtime \"other\" removed",
                    "restarted rediacc-docker-real.service");
            assertThat(restarts.get()).isEqualTo(1);
            JsonNode after = JSON.readTree(daemon[0].get("/info"));
            assertThat(after.path("CDISpecDirs")).as("the machine's /etc/cdi alone")
                    .containsExactly(JSON.getNodeFactory().textNode(m.resolve("root/etc/cdi").toString()));
            assertThat(after.path("DefaultRuntime").asText()).isEqualTo("runc");
            long pid = daemon[0].pid();

            Result second = rdc(config, "machine", "setup", "real-1", "--wait", "0");
            assertThat(second.exit()).as(second.all()).isZero();
            assertThat(second.out()).contains("daemon real: unchanged").doesNotContain(": changed");
            assertThat(restarts.get()).isEqualTo(1);
            assertThat(daemon[0].pid()).isEqualTo(pid);
            assertThat(daemon[0].alive()).isTrue();
        } finally {
            // ends the unit thread (read-write: the write never blocks, even when the thread is gone)
            try (java.io.RandomAccessFile stop = new java.io.RandomAccessFile(requests.toFile(), "rw")) {
                stop.write("stop\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            unit.join(30_000);
            daemon[0].close();
        }
    }

    @Test
    void aDaemonOlderThan25IsRefusedWithAClearLineAndItsConfigLeftAlone() throws Exception {
        Path m = fixture("old-1", "--nvidia", "1");
        String guid = UUID.randomUUID().toString();
        Path daemonJson = m.resolve("root/mnt/rediacc/mounts/" + guid + "/.rediacc/docker/config/daemon.json");
        Files.createDirectories(daemonJson.getParent());
        Files.writeString(daemonJson, "{\"bridge\": \"none\"}\n");
        // a Docker 24 daemon's GET /version (no CDI before 25.0)
        com.sun.net.httpserver.HttpServer docker24 = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        docker24.createContext("/", exchange -> {
            byte[] body = "{\"Version\":\"24.0.9\",\"ApiVersion\":\"1.43\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        docker24.start();
        try {
            manifest(m, "old-1", """
                      - name: legacy
                        guid: %s
                        listen: unix://%s
                        daemon: tcp://127.0.0.1:%d
                        daemonConfig: /mnt/rediacc/mounts/%s/.rediacc/docker/config/daemon.json
                        daemonService: rediacc-docker-legacy.service
                    """.formatted(guid, DIR.resolve("old-1-gate.sock"), docker24.getAddress().getPort(), guid));
            Result r = rdc(config("old-1", m, knownHosts), "machine", "setup", "old-1", "--wait", "0");
            assertThat(r.exit()).as(r.all()).isEqualTo(7);
            assertThat(r.out()).contains("daemon legacy: refused - Docker 24.0.9", "older than 25.0 and cannot use CDI");
            assertThat(r.err()).contains("setup of old-1 is not complete");
            assertThat(Files.readString(daemonJson)).isEqualTo("{\"bridge\": \"none\"}\n");
            assertThat(calls(m, "systemctl")).noneMatch(l -> l.startsWith("restart"));
        } finally {
            docker24.stop(0);
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
        // a plain re-run keeps the operator's false (saved on the machine), not rdc's default
        Result again = rdc(config("gpu-off", off, knownHosts), "machine", "setup", "gpu-off", "--wait", "0");
        assertThat(again.exit()).as(again.all()).isZero();
        assertThat(again.out()).contains("NVIDIA toolkit disabled",
                "toolkit choice: unchanged - INSTALL_NVIDIA_TOOLKIT=false");
        assertThat(off.resolve("root/etc/cdi/nvidia.yaml")).doesNotExist();

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
    void unknownHostKeyIsRefusedWithItsFingerprintAndUnreachableHostAndRefusedLoginAreTheirOwnFailures() throws Exception {
        Path m = fixture("gpu-unknown", "--nvidia", "1");
        Result r = rdc(config("gpu-unknown", m, sshd.emptyKnownHosts()), "machine", "setup", "gpu-unknown", "--wait", "0");
        assertThat(r.exit()).as(r.all()).isEqualTo(6);
        String fingerprint = run(List.of("ssh-keygen", "-lf", sshd.hostKeyPub.toString())).out().split("\\s+")[1];
        assertThat(r.err()).contains("is not known", fingerprint, "ssh-keyscan -p " + sshd.port + " 127.0.0.1 >> ");
        assertThat(m.resolve("root/usr/share/rediacc-gpu-node")).doesNotExist();

        int closed = FleetPorts.pick(); // nothing listens there
        Result u = rdc(config("gpu-unknown", m, knownHosts), "machine", "setup", "gpu-unknown", "--host", "root@127.0.0.1:" + closed,
                "--wait", "0");
        assertThat(u.exit()).as(u.all()).isEqualTo(1);
        assertThat(u.err()).contains("cannot reach root@127.0.0.1:" + closed + " over SSH");

        // a key the machine does not accept: the login is refused, exit 6 as for a host key, a different line
        Path stranger = DIR.resolve("stranger_ed25519");
        Files.deleteIfExists(stranger);
        assertThat(run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", stranger.toString())).exit()).isZero();
        Result refused = rdc(config("gpu-unknown", m, knownHosts), "machine", "setup", "gpu-unknown", "--identity", stranger.toString(),
                "--wait", "0");
        assertThat(refused.exit()).as(refused.all()).isEqualTo(6);
        assertThat(refused.err()).contains("refused the login", "--identity");
        assertThat(m.resolve("root/usr/share/rediacc-gpu-node")).doesNotExist();
    }

    // ---------------------------------------------------------------------------------------------

    private static Path fixture(String name, String... options) {
        Path dir = DIR.resolve(name);
        List<String> args = new ArrayList<>(List.of(dir.toString(), "--hostname", name));
        args.addAll(Arrays.asList(options));
        StringWriter out = new StringWriter();
        int exit = new CommandLine(new FixtureCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out)).execute(args.toArray(String[]::new));
        assertThat(exit).as(out.toString()).isZero();
        return dir;
    }

    private static void manifest(Path machine, String name, String repos) throws IOException {
        Path f = machine.resolve("root/etc/rediacc/gate/repos.yaml");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "machine: " + name + "\nrepos:\n" + repos);
    }

    private static Path config(String name, Path machine, Path known) throws IOException {
        return config(name, machine, known, machine.resolve("bin").toString());
    }

    private static Path config(String name, Path machine, Path known, String searchPath) throws IOException {
        Path f = DIR.resolve(name + "-rdc.yaml");
        Files.writeString(f, """
                machines:
                  %s:
                    host: %s
                    identity: %s
                    knownHosts: %s
                    root: %s
                    path: %s
                """.formatted(name, sshd.address(), sshd.userKey, known, machine.resolve("root"), searchPath));
        return f;
    }

    /**
     * Holds the lock deploy/debian/check-packages.sh holds while it installs and purges the same package on this host
     * ({@code .ci/run} runs it beside these tests): without it the host's status changed under the comparison
     * below. flock(1) in a child, as the script takes it (Java's own file locks are fcntl locks, which flock(2) does
     * not see); closing its stdin releases it.
     */
    private static final class HostPackageLock implements AutoCloseable {
        static final String FILE = "/tmp/rediacc-gpu-node-host-package.lock";
        private final Process flock;

        private HostPackageLock(Process flock) {
            this.flock = flock;
        }

        static HostPackageLock take() throws IOException {
            Process p = new ProcessBuilder("flock", "-x", FILE, "-c", "echo locked; exec cat > /dev/null")
                    .redirectErrorStream(true).start();
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
            if (!"locked".equals(line)) {
                p.destroyForcibly();
                throw new IOException("could not take " + FILE + ": " + line);
            }
            return new HostPackageLock(p);
        }

        @Override
        public void close() throws IOException {
            if (flock.isAlive()) {
                flock.getOutputStream().close();
            }
        }
    }

    /** The test host's own dpkg status of the package: a simulated machine's setup must not change it. */
    private static String hostPackageStatus() throws Exception {
        return run(List.of("sh", "-c", "dpkg-query -W -f='${db:Status-Status} ${Version}' rediacc-gpu-node 2>&1; ls /usr/lib/rediacc-gpu-node 2>&1"))
                .all();
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
        /** Machine to the body of its last kafka-user PUT. */
        final Map<String, String> kafkaUsers = new java.util.concurrent.ConcurrentHashMap<>();
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
                if (exchange.getRequestURI().getPath().endsWith("/kafka-user")) {
                    // inventory-service's PUT /api/v1/machines/{m}/kafka-user, managing Kafka users: the password is kept
                    String password = new String(exchange.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                    String before = kafkaUsers.put(machine, password);
                    byte[] bytes = ("{\"machine\":\"" + machine + "\",\"principal\":\"machine-" + machine
                            + "\",\"mechanism\":\"SCRAM-SHA-512\",\"existed\":" + (before != null) + ",\"present\":true}")
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().add("Content-Type", "application/json");
                    exchange.sendResponseHeaders(200, bytes.length);
                    exchange.getResponseBody().write(bytes);
                    exchange.close();
                    return;
                }
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

    private static Result run(List<String> cmd) throws Exception {
        return run(cmd, Map.of());
    }

    private static Result run(List<String> cmd, Map<String, String> env) throws Exception {
        Path out = Files.createTempFile(DIR, "out", ".txt");
        Path err = Files.createTempFile(DIR, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            // a bound to give up at, not a wait: a setup that sends and unpacks the 88 MB package took over 3 minutes
            // at load average 80 on the 2-core machine (a bound only costs time when the test fails)
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + cmd);
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
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
