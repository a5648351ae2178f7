package io.rediacc.gpu.gate.proxy;

import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.RawHttp;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.testsupport.RealDockerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.rediacc.gpu.gate.pinning.BindPinner;
import io.rediacc.gpu.gate.support.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the effect matters, against a real dockerd: a bind under the repo's hostPaths really
 * mounts what the repo wrote there, and a volume made on the daemon directly as a bind of the
 * host's /etc (which really shows the host's files) is refused through the gate. The gate is
 * started the way the application starts it ({@link StandaloneGates}), from a manifest.
 *
 * <p>Issue 30, with real swaps (another container replacing the checked directory with a symlink):
 * the daemon mounts the gate's pin of what was checked at every start, restart and {@code docker cp},
 * never the swapped path; a bind-backed volume's {@code device} mounts what was checked; containers
 * and volumes made by path before pinning are refused; pins go with their containers.
 */
class RealDaemonAllowlistTest {

    private static final String GUID = "44444444-4444-4444-8444-444444444444";

    @RegisterExtension
    static final RealDockerd docker = RealDockerd.withNvidiaCards(1);

    private static Path dir;
    private static Path mount;
    private static StandaloneGates gates;
    private static Gate gate;
    private static DockerCli viaGate;
    private static DockerCli direct;
    private static final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

    @BeforeAll
    static void start() throws IOException {
        dir = Files.createTempDirectory("gate-real");
        mount = Files.createDirectories(dir.resolve("mounts").resolve(GUID));
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: m-real
                repos:
                  - name: real
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                    hostPaths: [%s]
                    daemonDataRoot: %s
                """.formatted(GUID, docker.daemon().host(), mount, docker.daemon().dir()));
        gates = new StandaloneGates();
        gate = gates.start(manifest, dir.resolve("state"), "gate-real", registry, docker.cdiDir());
        InetSocketAddress address = (InetSocketAddress) gate.boundAddress("real").orElseThrow();
        viaGate = new DockerCli("tcp://127.0.0.1:" + address.getPort());
        direct = new DockerCli(docker.daemon().host());
    }

    /** The daemon after {@link #updateRestartAlwaysAndADaemonRestartMountThePin} restarted it (the extension stops the first). */
    private static io.rediacc.gpu.dockerd.Dockerd restarted;

    @AfterAll
    static void stop() {
        if (restarted != null) {
            restarted.close();
        }
        if (gate != null) {
            gate.close();
        }
        if (gates != null) {
            gates.close();
        }
    }

    @Test
    void aVersionOutsideWhatTheRealDaemonServesIsRefusedByTheGateNamingItsRange() {
        String max = direct.run("version", "--format", "{{.Server.APIVersion}}").stdout().strip();
        String min = direct.run("version", "--format", "{{.Server.MinAPIVersion}}").stdout().strip();
        String above = "1." + (Integer.parseInt(max.substring(max.indexOf('.') + 1)) + 1);
        java.net.SocketAddress address = gate.boundAddress("real").orElseThrow();

        String tooNew = RawHttp.request(address, "GET", "/v" + above + "/containers/json", "", null);
        String tooOld = RawHttp.request(address, "GET", "/v1.12/containers/json", "", null);
        String served = RawHttp.request(address, "GET", "/v" + max + "/containers/json", "", null);

        assertThat(RawHttp.status(tooNew)).as(tooNew).isEqualTo(400);
        assertThat(tooNew).contains("client version " + above + " is too new")
                .contains("serves API versions " + min + " to " + max).contains("DOCKER_API_VERSION=" + max);
        assertThat(RawHttp.status(tooOld)).as(tooOld).isEqualTo(400);
        assertThat(tooOld).contains("client version 1.12 is too old").contains("DOCKER_API_VERSION=" + min);
        assertThat(RawHttp.status(served)).as(served).isEqualTo(200);
    }

    @Test
    void aSpellingTheRealDaemonRoutesNowhereIsRefusedAsAnUnknownRouteNeverPassed() {
        String max = direct.run("version", "--format", "{{.Server.APIVersion}}").stdout().strip();
        java.net.SocketAddress address = gate.boundAddress("real").orElseThrow();
        String privileged = "{\"Image\":\"" + BaseImage.TAG + "\",\"HostConfig\":{\"Privileged\":true}}";
        List<String[]> nowhere = List.of(
                new String[] {"GET", "/v" + max + "/CONTAINERS/json", null},
                new String[] {"GET", "/V" + max + "/containers/json", null},
                new String[] {"GET", "/v" + max + "/containers/json/", null},
                new String[] {"get", "/v" + max + "/containers/json", null},
                new String[] {"GET", "/v" + max + "/v" + max + "/containers/json", null},
                new String[] {"GET", "/v" + max + "//containers/json", null},
                new String[] {"POST", "/v" + max + "/CONTAINERS/create", privileged},
                new String[] {"POST", "/v" + max + "/containers/create/", privileged});

        for (String[] r : nowhere) {
            String daemon = RawHttp.requestUnix(docker.daemon().socket(), r[0], r[1], r[2]);
            String viaTheGate = RawHttp.request(address, r[0], r[1], "", r[2]);

            assertThat(RawHttp.status(daemon)).as("the daemon routes %s %s nowhere: %s", r[0], r[1], daemon).isIn(301, 404);
            assertThat(daemon).doesNotContain("\"Id\"");
            assertThat(RawHttp.status(viaTheGate)).as(viaTheGate).isEqualTo(404);
            assertThat(viaTheGate).as("the gate's own refusal, not the daemon's 404").contains("has no route " + r[0]);
        }
        // the spellings the daemon does route reach it: percent-encoding is decoded by both
        String encoded = RawHttp.request(address, "GET", "/v" + max + "/containers/%6Aso%6E", "", null);
        assertThat(RawHttp.status(encoded)).as(encoded).isEqualTo(200);
        assertThat(RawHttp.status(RawHttp.requestUnix(docker.daemon().socket(), "GET", "/v" + max + "/containers/%6Aso%6E", null)))
                .isEqualTo(200);
    }

    @Test
    void aBindUnderHostPathsReallyMountsAndOneOutsideIsRefused() throws IOException {
        Files.createDirectories(mount.resolve("app"));
        Files.writeString(mount.resolve("app/hello"), "written on the host\n");

        DockerCli.Result inside = viaGate.run("run", "--rm", "--network", "none", "-v", mount + "/app:/app:ro", BaseImage.TAG,
                "cat", "/app/hello");
        DockerCli.Result outside = viaGate.run("run", "--rm", "--network", "none", "-v", "/usr/share:/s:ro", BaseImage.TAG,
                "ls", "/s");

        assertThat(inside.ok()).as(inside.toString()).isTrue();
        assertThat(inside.stdout()).isEqualTo("written on the host\n");
        assertThat(outside.ok()).as(outside.toString()).isFalse();
        assertThat(outside.stderr()).contains("hostPaths of repo real");
    }

    @Test
    void aVolumeMadeOnTheDaemonAsABindOfTheHostIsRefusedThroughTheGate() throws IOException {
        DockerCli.Result made = direct.run("volume", "create", "--opt", "type=none", "--opt", "o=bind", "--opt", "device=/etc", "hostetc");
        assertThat(made.ok()).as(made.toString()).isTrue();
        // The threat is real: straight at the daemon, the volume is the host's /etc.
        DockerCli.Result straight = direct.run("run", "--rm", "--network", "none", "-v", "hostetc:/e:ro", BaseImage.TAG, "cat", "/e/hostname");
        assertThat(straight.stdout()).isEqualTo(Files.readString(Path.of("/etc/hostname")));

        DockerCli.Result gated = viaGate.run("run", "--rm", "--network", "none", "-v", "hostetc:/e:ro", BaseImage.TAG, "cat", "/e/hostname");

        assertThat(gated.ok()).as(gated.toString()).isFalse();
        assertThat(gated.stderr()).contains("volume hostetc already exists").contains("/etc");
        assertThat(gated.stdout()).isEmpty();
    }

    /** {@code gate_volume_reads_total{answer}} so far. */
    private static double volumeReads(String answer) {
        return registry.get("gate.volume.reads").tag("answer", answer).functionCounter().count();
    }

    /**
     * Runs a container of {@code name} through the gate until one run was judged on a kept answer: the create reads
     * the volume and keeps it, the start judges the kept one, once the gate follows the daemon's events (a test that
     * restarted the daemon may have left the pin watcher waiting to reconnect).
     */
    private static void keptAnswerOf(String name) {
        Await.until("a run of volume " + name + " judged a kept answer", Duration.ofSeconds(120), () -> {
            double before = volumeReads("kept");
            DockerCli.Result run = viaGate.run("run", "--rm", "--network", "none", "-v", name + ":/v", BaseImage.TAG, "true");
            assertThat(run.ok()).as(run.toString()).isTrue();
            return volumeReads("kept") > before;
        });
    }

    /**
     * Issue 34: while the daemon's events vouch for it, the gate keeps a volume's answer, so the next create
     * naming the volume (and its start) is judged without reading it from the daemon again; a volume replaced on the daemon
     * directly by a bind of the host's /etc is read again at once (its destroy reached the gate) and refused.
     */
    @Test
    void aKeptVolumeAnswerServesUntilTheVolumeIsReplacedOnTheDaemon() throws IOException {
        String name = "kept-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(direct.run("volume", "create", name).ok()).isTrue();
        try {
            keptAnswerOf(name);
            double asked = volumeReads("daemon");
            double kept = volumeReads("kept");

            DockerCli.Result second = viaGate.run("run", "--rm", "--network", "none", "-v", name + ":/v", BaseImage.TAG, "true");

            assertThat(second.ok()).as(second.toString()).isTrue();
            // the create and the start (which judges the stored container again) judged the kept answer
            assertThat(volumeReads("kept")).as("the run judged the kept answer").isGreaterThanOrEqualTo(kept + 1);
            assertThat(volumeReads("daemon")).as("and did not ask the daemon").isEqualTo(asked);

            assertThat(direct.run("volume", "rm", name).ok()).isTrue();
            DockerCli.Result made = direct.run("volume", "create", "--opt", "type=none", "--opt", "o=bind", "--opt", "device=/etc", name);
            assertThat(made.ok()).as(made.toString()).isTrue();

            DockerCli.Result replaced = viaGate.run("run", "--rm", "--network", "none", "-v", name + ":/e:ro", BaseImage.TAG,
                    "cat", "/e/hostname");

            assertThat(replaced.ok()).as(replaced.toString()).isFalse();
            assertThat(replaced.stderr()).contains("volume " + name + " already exists").contains("/etc");
            assertThat(replaced.stdout()).isEmpty();
            assertThat(volumeReads("daemon")).as("the replaced volume was read from the daemon").isGreaterThan(asked);
        } finally {
            direct.run("volume", "rm", "-f", name);
        }
    }

    /**
     * Issue 34, found by a red team: a create pipelined right behind a {@code DELETE /volumes/{name}} on one
     * connection was judged on the deleted volume's kept answer about half the time (the destroy event not read
     * yet). The gate now forgets the answer when it passes the delete, so the create asks the daemon, every time.
     */
    @Test
    void aCreatePipelinedBehindTheVolumesDeleteIsJudgedOnWhatTheDaemonSaysThen() {
        String max = direct.run("version", "--format", "{{.Server.APIVersion}}").stdout().strip();
        java.net.SocketAddress address = gate.boundAddress("real").orElseThrow();
        for (int i = 0; i < 8; i++) {
            String name = "piped-" + UUID.randomUUID().toString().substring(0, 8);
            assertThat(direct.run("volume", "create", name).ok()).isTrue();
            try {
                keptAnswerOf(name);
                double kept = volumeReads("kept");
                double asked = volumeReads("daemon");
                String body = "{\"Image\":\"" + BaseImage.TAG + "\",\"Cmd\":[\"true\"],\"HostConfig\":{\"Binds\":[\"" + name + ":/v\"]}}";
                String raw = RawHttp.exchange(address, "DELETE /v" + max + "/volumes/" + name + " HTTP/1.1\r\nHost: docker\r\n\r\n"
                        + "POST /v" + max + "/containers/create HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n"
                        + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);

                assertThat(RawHttp.statuses(raw)).as(raw).containsExactly(204, 201);
                assertThat(volumeReads("kept")).as("round %d: the create was not judged on the deleted volume's answer", i)
                        .isEqualTo(kept);
                assertThat(volumeReads("daemon")).as("round %d: it asked the daemon", i).isEqualTo(asked + 1);
            } finally {
                direct.run("container", "prune", "-f");
                direct.run("volume", "rm", "-f", name);
            }
        }
    }

    @Test
    void aVolumeBoundUnderHostPathsThroughTheGateServesTheRepoFiles() throws IOException {
        Files.createDirectories(mount.resolve("share"));
        Files.writeString(mount.resolve("share/data"), "shared\n");

        DockerCli.Result made = viaGate.run("volume", "create", "--opt", "type=none", "--opt", "o=bind", "--opt",
                "device=" + mount + "/share", "share");
        DockerCli.Result run = viaGate.run("run", "--rm", "--network", "none", "-v", "share:/s", BaseImage.TAG, "cat", "/s/data");

        assertThat(made.ok()).as(made.toString()).isTrue();
        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(run.stdout()).isEqualTo("shared\n");
    }

    // ------------------------------------------------------------------ issue 30: pinned binds

    private static Path pinDir() {
        return StandaloneGates.pinRootFor(dir.resolve("state")).resolve(GUID);
    }

    private static java.util.Set<Path> pinEntries() {
        if (!Files.isDirectory(pinDir())) {
            return java.util.Set.of();
        }
        try (var s = Files.list(pinDir())) {
            return s.collect(java.util.stream.Collectors.toSet());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** A fresh checked directory {@code <mount>/<name>/d} holding {@code checked}, and a host directory outside hostPaths. */
    private static Path checkedTree(String name) throws IOException {
        Path work = Files.createDirectories(mount.resolve(name));
        Files.createDirectories(work.resolve("d"));
        Files.writeString(work.resolve("d/checked"), "what the gate checked\n");
        Path outside = Files.createDirectories(dir.resolve("outside-" + name));
        Files.writeString(outside.resolve("secret"), "outside hostPaths\n");
        return work;
    }

    /** Another container of the repo (through the gate) replaces {@code work/d} with a symlink to {@code target}. */
    private static void swap(Path work, String target) {
        DockerCli.Result swapped = viaGate.run("run", "--rm", "--network", "none", "-v", work + ":/w", BaseImage.TAG, "sh", "-c",
                "mv /w/d /w/moved && ln -s " + target + " /w/d");
        assertThat(swapped.ok()).as(swapped.toString()).isTrue();
        assertThat(Files.isSymbolicLink(work.resolve("d"))).isTrue();
    }

    @Test
    void afterASwapDockerCpAndStartsOfCreatedStoppedAndRunningContainersSeeOnlyWhatWasChecked() throws IOException {
        Path work = checkedTree("cp");
        String name = "pinned-cp";
        DockerCli.Result created = viaGate.run("create", "--name", name, "--network", "none", "-v", work + "/d:/d",
                BaseImage.TAG, "sh", "-c", "ls /d; sleep 30");
        assertThat(created.ok()).as(created.toString()).isTrue();
        String label = direct.run("inspect", "--format", "{{index .Config.Labels \"io.rediacc.gate.bind.0\"}}", name).stdout().strip();
        assertThat(label).as("docker inspect still says where the bind came from").isEqualTo(work + "/d");

        swap(work, "/");
        // created: docker cp out reads what was checked, and the host's root is not behind /d
        DockerCli.Result out = viaGate.run("cp", name + ":/d/checked", dir.resolve("cp-out").toString());
        DockerCli.Result hostFile = viaGate.run("cp", name + ":/d/etc/hostname", dir.resolve("cp-host").toString());
        assertThat(out.ok()).as(out.toString()).isTrue();
        assertThat(Files.readString(dir.resolve("cp-out"))).isEqualTo("what the gate checked\n");
        assertThat(hostFile.ok()).as(hostFile.toString()).isFalse();
        assertThat(Files.exists(dir.resolve("cp-host"))).isFalse();
        // docker cp in lands in the checked directory (now at work/moved), never in the host's root
        Files.writeString(dir.resolve("cp-in"), "copied in\n");
        DockerCli.Result in = viaGate.run("cp", dir.resolve("cp-in").toString(), name + ":/d/cp-in");
        assertThat(in.ok()).as(in.toString()).isTrue();
        assertThat(Files.readString(work.resolve("moved/cp-in"))).isEqualTo("copied in\n");
        assertThat(Files.exists(Path.of("/cp-in"))).isFalse();

        // running: the start mounts the pin
        DockerCli.Result started = viaGate.run("start", name);
        assertThat(started.ok()).as(started.toString()).isTrue();
        Await.until("the container listed /d", Duration.ofSeconds(30),
                () -> direct.run("logs", name).stdout().contains("checked"));
        assertThat(direct.run("logs", name).stdout()).doesNotContain("etc").contains("cp-in");
        DockerCli.Result running = viaGate.run("cp", name + ":/d/checked", dir.resolve("cp-running").toString());
        assertThat(running.ok()).as(running.toString()).isTrue();
        assertThat(viaGate.run("cp", name + ":/d/etc/hostname", dir.resolve("cp-running-host").toString()).ok()).isFalse();
        DockerCli.Result inRunning = viaGate.run("cp", dir.resolve("cp-in").toString(), name + ":/d/cp-in-running");
        assertThat(inRunning.ok()).as(inRunning.toString()).isTrue();
        assertThat(Files.readString(work.resolve("moved/cp-in-running"))).isEqualTo("copied in\n");
        assertThat(Files.exists(Path.of("/cp-in-running"))).isFalse();

        // stopped: the same
        assertThat(direct.run("kill", name).ok()).isTrue();
        assertThat(viaGate.run("cp", name + ":/d/etc/hostname", dir.resolve("cp-stopped-host").toString()).ok()).isFalse();
        assertThat(viaGate.run("cp", name + ":/d/checked", dir.resolve("cp-stopped").toString()).ok()).isTrue();
        DockerCli.Result inStopped = viaGate.run("cp", dir.resolve("cp-in").toString(), name + ":/d/cp-in-stopped");
        assertThat(inStopped.ok()).as(inStopped.toString()).isTrue();
        assertThat(Files.readString(work.resolve("moved/cp-in-stopped"))).isEqualTo("copied in\n");
        assertThat(Files.exists(Path.of("/cp-in-stopped"))).isFalse();

        assertThat(viaGate.run("rm", "-f", name).ok()).isTrue();
    }

    @Test
    void restartsAfterTheProcessExitsMountThePinNotTheSwappedPath() throws IOException {
        Path work = checkedTree("restart");
        Path outside = dir.resolve("outside-restart");
        DockerCli.Result created = viaGate.run("create", "--name", "pinned-restart", "--network", "none",
                "--restart", "on-failure:2", "-v", work + "/d:/d", BaseImage.TAG, "sh", "-c", "echo run >> /d/runs; exit 1");
        assertThat(created.ok()).as(created.toString()).isTrue();
        // --restart always: restarted after a clean exit too
        DockerCli.Result always = viaGate.run("create", "--name", "pinned-always", "--network", "none",
                "--restart", "always", "-v", work + "/d:/d", BaseImage.TAG, "sh", "-c", "echo run >> /d/always; exit 0");
        assertThat(always.ok()).as(always.toString()).isTrue();
        swap(work, outside.toString());

        assertThat(viaGate.run("start", "pinned-restart").ok()).isTrue();
        assertThat(viaGate.run("start", "pinned-always").ok()).isTrue();

        Await.until("the first run and both restarts wrote", Duration.ofSeconds(60),
                () -> read(work.resolve("moved/runs")).equals("run\nrun\nrun\n"));
        Await.until("--restart always restarted the container twice after clean exits", Duration.ofSeconds(60),
                () -> read(work.resolve("moved/always")).length() >= "run\nrun\nrun\n".length());
        assertThat(viaGate.run("rm", "-f", "pinned-always").ok()).isTrue();
        assertThat(Files.exists(outside.resolve("runs"))).as("no run wrote through the swapped link").isFalse();
        assertThat(Files.exists(outside.resolve("always"))).as("no run of --restart always wrote through the swapped link").isFalse();
        assertThat(viaGate.run("rm", "-f", "pinned-restart").ok()).isTrue();
    }

    /**
     * Issue 30's race loop: another container of the repo keeps swapping the checked bind directory
     * for a symlink to the host's {@code /} while containers binding it start through the gate. Every
     * start either mounts exactly the pinned directory (its one file, nothing of the host's root) or
     * is refused at the check; none sees the host. {@value #RACE_STARTS} starts here (CI's time);
     * {@code bench/gate-swap-race.sh} runs the 200 the issue asks for ({@code -Dgate.race.starts=200}).
     */
    @Test
    @org.junit.jupiter.api.Tag("swap-race")
    void startsRacingASwapperToTheHostRootMountOnlyThePinOrAreRefused() throws IOException {
        Path work = checkedTree("race");
        // the swapper: flips work/d between the directory and a link to the host's root, half the time flat out and
        // half the time staying a random while (a busy count, no sleep: up to 12 ms a link, 5 ms a directory), so
        // swaps land at every moment of a start, before, between and after the gate's checks, and about a quarter of
        // the starts are admitted (each runs a container, the slow part). Always flat out, d was a directory only a
        // sliver of the time and a start must find it so at both the judge and the pin: a CI run saw 0 of 40
        // admitted, and the check below failed.
        String swapper = "while true; do mv /w/d /w/real; ln -s / /w/d; " + dwell(9000) + "; rm /w/d; mv /w/real /w/d; "
                + dwell(4000) + "; done";
        DockerCli.Result swapping = viaGate.run("run", "-d", "--name", "swapper", "--network", "none", "-v", work + ":/w",
                BaseImage.TAG, "sh", "-c", swapper);
        assertThat(swapping.ok()).as(swapping.toString()).isTrue();
        int starts = Integer.getInteger("gate.race.starts", RACE_STARTS);
        int admitted = 0;
        long startedAt = System.nanoTime();
        try {
            for (int i = 0; i < starts; i++) {
                // --mount: a missing source is refused, not created (a -v source the gate would create beneath the root)
                DockerCli.Result run = viaGate.run("run", "--rm", "--network", "none", "--mount", "type=bind,source=" + work + "/d,target=/d",
                        BaseImage.TAG, "sh", "-c", "cat /d/checked; ls -a /d");
                if (run.ok()) {
                    admitted++;
                    assertThat(run.stdout()).as("start %d mounts the pinned directory and nothing else", i)
                            .isEqualTo("what the gate checked\n.\n..\nchecked\n");
                } else {
                    assertThat(run.stdout()).as("start %d: never the host's root", i).doesNotContain("etc").doesNotContain("proc");
                    assertThat(run.stderr()).as(run.toString()).contains("is refused");
                }
            }
        } finally {
            direct.run("rm", "-f", "swapper");
        }
        System.out.printf("race: %d starts with a swapper to / running, %d admitted (each the pin), %d refused, %.1f s%n", starts,
                admitted, starts - admitted, (System.nanoTime() - startedAt) / 1e9);
        assertThat(admitted).as("some starts found the directory in place and ran on its pin").isPositive();
    }

    /** A busy wait in busybox's sh: none half the time, else up to {@code count} loop turns (about 1.3 µs each here). */
    private static String dwell(int count) {
        return "i=0; n=$((RANDOM % 2 ? 0 : RANDOM % " + count + ")); while [ $i -lt $n ]; do i=$((i+1)); done";
    }

    /** Starts of the race loop in CI: issue 30 asks 200 (bench/gate-swap-race.sh); 40 fit CI's time on 2 cores (about 0.4 s each). */
    private static final int RACE_STARTS = 40;

    @Test
    void aVolumeDeviceThroughALinkMountsOnlyWhatWasCheckedCreatedInlineRbindAndExisting() throws IOException {
        Path work = checkedTree("vol");
        Path outside = dir.resolve("outside-vol");
        Files.createDirectories(outside.resolve("sub"));
        Files.createSymbolicLink(work.resolve("l"), outside.resolve("sub"));
        String device = work + "/l/..";

        for (List<String> opts : List.of(List.of("o=bind"), List.of("o=rbind,ro"))) {
            String volume = "linkvol-" + UUID.randomUUID().toString().substring(0, 8);
            DockerCli.Result made = viaGate.run("volume", "create", "--opt", "type=none", "--opt", opts.get(0), "--opt", "device=" + device, volume);
            if (made.ok()) {
                DockerCli.Result ls = viaGate.run("run", "--rm", "--network", "none", "-v", volume + ":/v", BaseImage.TAG, "ls", "/v");
                assertThat(ls.ok()).as(ls.toString()).isTrue();
                assertThat(ls.stdout()).as("the volume is what the gate checked (%s), not the link target's parent", work)
                        .contains("d").contains("l").doesNotContain("secret");
                assertThat(viaGate.run("volume", "rm", volume).ok()).isTrue();
            } else {
                assertThat(made.stderr()).as(made.toString()).contains("is refused");
            }
        }
        DockerCli.Result inline = viaGate.run("run", "--rm", "--network", "none", "--mount",
                "type=volume,target=/v,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=" + device, BaseImage.TAG, "ls", "/v");
        if (inline.ok()) {
            assertThat(inline.stdout()).contains("d").doesNotContain("secret");
        } else {
            assertThat(inline.stderr()).as(inline.toString()).contains("is refused");
        }
        // made on the daemon directly, by path: refused through the gate with what to do
        assertThat(direct.run("volume", "create", "--opt", "type=none", "--opt", "o=bind", "--opt", "device=" + work, "bypath").ok()).isTrue();
        DockerCli.Result existing = viaGate.run("run", "--rm", "--network", "none", "-v", "bypath:/v", BaseImage.TAG, "ls", "/v");
        assertThat(existing.ok()).isFalse();
        assertThat(existing.stderr()).contains("made before the gate pinned bind sources").contains("create it again through the gate");
    }

    /**
     * A bind volume made through the gate and used later: its checked directory is swapped for a
     * symlink out of hostPaths after the create, and every later use mounts what was checked.
     */
    @Test
    void anExistingBindVolumeUsedAfterASwapMountsWhatWasChecked() throws IOException {
        Path work = checkedTree("vol-existing");
        Path outside = dir.resolve("outside-vol-existing");
        DockerCli.Result made = viaGate.run("volume", "create", "--opt", "type=none", "--opt", "o=bind", "--opt",
                "device=" + work + "/d", "checked-vol");
        assertThat(made.ok()).as(made.toString()).isTrue();
        swap(work, outside.toString());

        DockerCli.Result ls = viaGate.run("run", "--rm", "--network", "none", "-v", "checked-vol:/v", BaseImage.TAG, "ls", "/v");

        assertThat(ls.ok()).as(ls.toString()).isTrue();
        assertThat(ls.stdout()).isEqualTo("checked\n");
        assertThat(viaGate.run("volume", "rm", "checked-vol").ok()).isTrue();
    }

    /**
     * A unix log socket under hostPaths (a real one, listening) is refused with the network address to
     * use instead: the daemon would dial it by path at every start, restart and boot.
     */
    @Test
    void aUnixLogSocketUnderHostPathsIsRefusedNamingTheNetworkAlternative() throws IOException {
        Path socket = mount.resolve("log.sock");
        try (java.nio.channels.ServerSocketChannel server = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            server.bind(java.net.UnixDomainSocketAddress.of(socket));

            DockerCli.Result run = viaGate.run("run", "--rm", "--network", "none", "--log-driver", "syslog", "--log-opt",
                    "syslog-address=unix://" + socket, BaseImage.TAG, "true");

            assertThat(run.ok()).as(run.toString()).isFalse();
            assertThat(run.stderr()).contains("log socket syslog-address=unix://" + socket).contains("udp://127.0.0.1:514")
                    .doesNotContain("CDI");
        } finally {
            Files.deleteIfExists(socket);
        }
    }

    /** compose's relative bind ({@code ./data:/data}) resolves under the project directory, inside hostPaths, and works. */
    @Test
    void composeRelativeBindsStillWork() throws IOException {
        assertThat(docker.kit().composePlugin()).as("the dockerd kit's compose plugin").isPresent();
        Path project = Files.createDirectories(mount.resolve("compose-project"));
        Files.createDirectories(project.resolve("data"));
        Files.writeString(project.resolve("data/file"), "compose data\n");
        Files.writeString(project.resolve("compose.yaml"), """
                services:
                  app:
                    image: %s
                    command: cat /data/file
                    network_mode: none
                    volumes:
                      - ./data:/data
                """.formatted(BaseImage.TAG));
        DockerCli compose = new DockerCli("tcp://127.0.0.1:" + ((InetSocketAddress) gate.boundAddress("real").orElseThrow()).getPort(),
                docker.kit().dockerConfig(dir.resolve("compose-config")));

        DockerCli.Result run = compose.run("compose", "-f", project.resolve("compose.yaml").toString(), "-p", "gate30", "run", "--rm", "app");

        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(run.stdout()).contains("compose data");
        compose.run("compose", "-f", project.resolve("compose.yaml").toString(), "-p", "gate30", "down");
    }

    @Test
    void relativeLinksInsideHostPathsStillWork() throws IOException {
        Path work = checkedTree("rel");
        Files.createSymbolicLink(work.resolve("data"), Path.of("d"));
        Files.createSymbolicLink(mount.resolve("rel-up"), Path.of("rel/d"));

        DockerCli.Result viaLink = viaGate.run("run", "--rm", "--network", "none", "-v", work + "/data:/data", BaseImage.TAG, "cat", "/data/checked");
        DockerCli.Result viaUp = viaGate.run("run", "--rm", "--network", "none", "--mount", "type=bind,source=" + mount + "/rel-up,target=/data",
                BaseImage.TAG, "cat", "/data/checked");
        DockerCli.Result missing = viaGate.run("run", "--rm", "--network", "none", "-v", work + "/made/by/gate:/m", BaseImage.TAG, "ls", "/m");

        assertThat(viaLink.ok()).as(viaLink.toString()).isTrue();
        assertThat(viaLink.stdout()).isEqualTo("what the gate checked\n");
        assertThat(viaUp.ok()).as(viaUp.toString()).isTrue();
        assertThat(missing.ok()).as("a missing -v source is created beneath the root, as the daemon would: " + missing).isTrue();
        assertThat(Files.isDirectory(work.resolve("made/by/gate"))).isTrue();
    }

    @Test
    void aContainerBindingByPathMadeBeforePinningIsRefusedItsStartWithTheFix() throws IOException {
        Path work = checkedTree("old");
        assertThat(direct.run("create", "--name", "made-by-path", "--network", "none", "-v", work + "/d:/d", BaseImage.TAG, "true").ok()).isTrue();

        DockerCli.Result start = viaGate.run("start", "made-by-path");

        assertThat(start.ok()).isFalse();
        assertThat(start.stderr()).contains("was not pinned by the gate").contains("recreate the container through the gate");
        direct.run("rm", "-f", "made-by-path");
    }

    @Test
    void aContainerBindingByPathMadeBeforePinningIsRefusedItsCpExportAndCommitWithTheFix() throws IOException {
        Path work = checkedTree("old-cp");
        assertThat(direct.run("create", "--name", "old-cp", "--network", "none", "-v", work + "/d:/d", BaseImage.TAG, "true").ok()).isTrue();
        swap(work, "/");
        Files.writeString(dir.resolve("old-cp-in"), "copied in\n");

        List<DockerCli.Result> refused = List.of(
                viaGate.run("cp", "old-cp:/d/etc/hostname", dir.resolve("old-cp-out").toString()),
                viaGate.run("cp", dir.resolve("old-cp-in").toString(), "old-cp:/d/old-cp-in"),
                viaGate.run("export", "-o", dir.resolve("old-cp.tar").toString(), "old-cp"),
                viaGate.run("commit", "old-cp", "old-cp-image"));

        for (DockerCli.Result r : refused) {
            assertThat(r.ok()).as(r.toString()).isFalse();
            assertThat(r.stderr()).contains("was not pinned by the gate").contains("recreate the container through the gate");
        }
        assertThat(Files.exists(dir.resolve("old-cp-out"))).isFalse();
        assertThat(Files.exists(Path.of("/old-cp-in"))).isFalse();
        // straight at the daemon the threat is real: the swapped link is what it mounts for docker cp
        DockerCli.Result straight = direct.run("cp", "old-cp:/d/etc/hostname", dir.resolve("old-cp-straight").toString());
        assertThat(straight.ok()).as(straight.toString()).isTrue();
        assertThat(Files.readString(dir.resolve("old-cp-straight"))).isEqualTo(Files.readString(Path.of("/etc/hostname")));
        direct.run("rm", "-f", "old-cp");
    }

    @Test
    void updateOfAnUnpinnedContainerMayChangeLimitsButNotSetARestartPolicyNorCgroupSettings() throws IOException {
        Path work = checkedTree("old-update");
        assertThat(direct.run("create", "--name", "old-update", "--network", "none", "-v", work + "/d:/d", BaseImage.TAG, "true").ok()).isTrue();

        DockerCli.Result restart = viaGate.run("update", "--restart", "always", "old-update");
        DockerCli.Result memory = viaGate.run("update", "--memory", "64m", "--memory-swap", "128m", "old-update");
        DockerCli.Result restartNo = viaGate.run("update", "--restart", "no", "old-update");

        assertThat(restart.ok()).as(restart.toString()).isFalse();
        assertThat(restart.stderr()).contains("was not pinned by the gate").contains("recreate the container through the gate");
        assertThat(direct.run("inspect", "--format", "{{.HostConfig.RestartPolicy.Name}}", "old-update").stdout().strip())
                .isIn("", "no");
        assertThat(memory.ok()).as(memory.toString()).isTrue();
        assertThat(restartNo.ok()).as(restartNo.toString()).isTrue();
        direct.run("rm", "-f", "old-update");
    }

    @Test
    void dockerCpOfADeviceNodeIntoCreatedAndRunningContainersIsRefusedAndNothingLands() {
        DockerCli.Result created = viaGate.run("create", "--name", "cp-device", "--network", "none", BaseImage.TAG, "sleep", "60");
        assertThat(created.ok()).as(created.toString()).isTrue();
        byte[] withDevice = new io.rediacc.gpu.gate.support.TarBuilder().file("before", "fine\n").charDevice("nvidia0", 195, 0).build();
        byte[] plain = new io.rediacc.gpu.gate.support.TarBuilder().file("plain", "fine\n").build();

        for (String state : List.of("created", "running")) {
            if (state.equals("running")) {
                assertThat(viaGate.run("start", "cp-device").ok()).isTrue();
            }
            DockerCli.Result device = viaGate.runWithBytes(withDevice, "cp", "-", "cp-device:/tmp");
            DockerCli.Result ok = viaGate.runWithBytes(plain, "cp", "-", "cp-device:/tmp");

            assertThat(device.ok()).as(state + ": " + device).isFalse();
            assertThat(device.stderr()).contains("character device entry \"nvidia0\" (195:0)");
            assertThat(ok.ok()).as(state + ": " + ok).isTrue();
            DockerCli.Result landed = direct.run("cp", "cp-device:/tmp/nvidia0", "-");
            assertThat(landed.ok()).as(state + ": the device node never reached the container").isFalse();
            assertThat(direct.run("cp", "cp-device:/tmp/before", "-").ok())
                    .as(state + ": all or nothing: the entry before the device was not extracted either").isFalse();
            assertThat(direct.run("cp", "cp-device:/tmp/plain", dir.resolve("cp-plain-" + state).toString()).ok()).isTrue();
        }
        // a legacy NUL entry is a regular file to the daemon's Go reader: admitted, and it lands as one
        byte[] legacy = new io.rediacc.gpu.gate.support.TarBuilder().header("legacy", '\0', 7, 0, 0)
                .data("legacy\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)).build();
        DockerCli.Result nul = viaGate.runWithBytes(legacy, "cp", "-", "cp-device:/tmp");
        assertThat(nul.ok()).as(nul.toString()).isTrue();
        assertThat(direct.run("exec", "cp-device", "cat", "/tmp/legacy").stdout()).isEqualTo("legacy\n");
        // a compressed upload is refused before the daemon could unpack it unseen
        java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream zip = new java.util.zip.GZIPOutputStream(gz)) {
            zip.write(withDevice);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        DockerCli.Result compressed = viaGate.runWithBytes(gz.toByteArray(), "cp", "-", "cp-device:/tmp");
        assertThat(compressed.ok()).isFalse();
        assertThat(compressed.stderr()).contains("gzip-compressed");
        assertThat(direct.run("cp", "cp-device:/tmp/nvidia0", "-").ok()).isFalse();
        assertThat(viaGate.run("rm", "-f", "cp-device").ok()).isTrue();
    }

    @Test
    void createAndRemoveCyclesLeaveNoPinAndNoMountBehind() throws IOException {
        Path work = checkedTree("cycles");
        Files.createDirectories(work.resolve("e"));
        java.util.Set<Path> before = pinEntries();
        for (int i = 0; i < 3; i++) {
            DockerCli.Result run = viaGate.run("run", "--rm", "--network", "none", "-v", work + "/d:/d:ro", "-v", work + "/e:/e",
                    BaseImage.TAG, "true");
            assertThat(run.ok()).as(run.toString()).isTrue();
            DockerCli.Result created = viaGate.run("create", "--name", "cycle-" + i, "-v", work + "/d:/d", BaseImage.TAG, "true");
            assertThat(created.ok()).as(created.toString()).isTrue();
            assertThat(viaGate.run("rm", "cycle-" + i).ok()).isTrue();
        }
        // refused creates leave nothing either
        assertThat(viaGate.run("create", "--name", "dup", "-v", work + "/d:/d", "-v", work + "/e:/d", BaseImage.TAG, "true").ok()).isFalse();

        // (pins of other tests' containers may still go meanwhile: only this test's must be gone)
        Await.until("every pin of the removed containers is gone", Duration.ofSeconds(30), () -> before.containsAll(pinEntries()));
        assertThat(before).containsAll(BindPinner.mountsUnder(pinDir()));
    }

    /**
     * {@code docker update --restart always} and {@code --restart on-failure}, across a restart of the
     * real daemon: its boot starts both containers itself, on their pins, after the checked directory
     * was swapped. The restarted daemon logs requests (debug), which the last part uses: an
     * un-versioned request reaches the daemon with the API version the daemon serves it as
     * ({@code GET /version} {@code ApiVersion}), the one the gate judged it as.
     */
    @Test
    void updateRestartAlwaysOnFailureAndADaemonRestartMountThePin() throws Exception {
        Path work = checkedTree("boot");
        Path outside = dir.resolve("outside-boot");
        DockerCli.Result created = viaGate.run("create", "--name", "pinned-boot", "--network", "none", "-v", work + "/d:/d",
                BaseImage.TAG, "sh", "-c", "echo boot >> /d/boots; sleep 600");
        assertThat(created.ok()).as(created.toString()).isTrue();
        DockerCli.Result onFailure = viaGate.run("create", "--name", "pinned-boot-onfailure", "--network", "none",
                "--restart", "on-failure:5", "-v", work + "/d:/d", BaseImage.TAG, "sh", "-c", "echo boot >> /d/onfailure; sleep 600");
        assertThat(onFailure.ok()).as(onFailure.toString()).isTrue();
        DockerCli.Result update = viaGate.run("update", "--restart", "always", "pinned-boot");
        assertThat(update.ok()).as(update.toString()).isTrue();
        assertThat(viaGate.run("start", "pinned-boot").ok()).isTrue();
        assertThat(viaGate.run("start", "pinned-boot-onfailure").ok()).isTrue();
        Await.until("the first starts wrote", Duration.ofSeconds(30),
                () -> read(work.resolve("d/boots")).equals("boot\n") && read(work.resolve("d/onfailure")).equals("boot\n"));
        swap(work, outside.toString());

        // the daemon restarts (same data root and socket) and starts the containers itself at its boot
        // (on-failure too: the shutdown stopped it with a non-zero exit, and the daemon did not count that as a manual stop)
        io.rediacc.gpu.dockerd.Dockerd first = docker.daemon();
        String max = direct.run("version", "--format", "{{.Server.APIVersion}}").stdout().strip();
        first.close();
        Path config = first.dir().resolve("daemon.json");
        Files.writeString(config, Files.readString(config).replaceFirst("\\{", "{\"debug\": true,"));
        restarted = io.rediacc.gpu.dockerd.Dockerd.startWithConfig(first.kit(), first.dir(), first.socket(), config);

        Await.until("the daemon's boot restarted both containers on their pins", Duration.ofSeconds(60),
                () -> read(work.resolve("moved/boots")).equals("boot\nboot\n") && read(work.resolve("moved/onfailure")).equals("boot\nboot\n"));
        assertThat(Files.exists(outside.resolve("boots"))).as("the boot start did not follow the swapped link").isFalse();
        assertThat(Files.exists(outside.resolve("onfailure"))).as("the boot start (on-failure) did not follow the swapped link").isFalse();
        assertThat(viaGate.run("rm", "-f", "pinned-boot", "pinned-boot-onfailure").ok()).isTrue();

        // An un-versioned create is served by the daemon as its ApiVersion: the gate forwards it with exactly that version.
        java.net.SocketAddress address = gate.boundAddress("real").orElseThrow();
        Files.createDirectories(mount.resolve("unversioned"));
        String name = "unversioned-" + UUID.randomUUID().toString().substring(0, 8);
        String body = "{\"Image\":\"" + BaseImage.TAG + "\",\"Cmd\":[\"true\"],\"HostConfig\":{\"NetworkMode\":\"none\","
                + "\"Binds\":[\"" + mount + "/unversioned:/u\"]}}";
        String privileged = "{\"Image\":\"" + BaseImage.TAG + "\",\"HostConfig\":{\"Privileged\":true}}";
        String create = RawHttp.request(address, "POST", "/containers/create?name=" + name, "", body);
        String refused = RawHttp.request(address, "POST", "/containers/create?name=" + name + "-privileged", "", privileged);

        assertThat(RawHttp.status(create)).as(create).isEqualTo(201);
        String log = Files.readString(restarted.log());
        assertThat(log).as("the daemon received the create with the version it serves un-versioned requests as")
                .contains("/v" + max + "/containers/create?name=" + name).doesNotContain("request-url=\"/containers/create?name=" + name);
        assertThat(direct.run("inspect", "--format", "{{index .Config.Labels \"io.rediacc.gate.bind.0\"}}", name).stdout().strip())
                .as("judged and pinned like any create").isEqualTo(mount + "/unversioned");
        assertThat(RawHttp.status(refused)).as(refused).isEqualTo(403);
        assertThat(log).doesNotContain(name + "-privileged");
        assertThat(viaGate.run("rm", "-f", name).ok()).isTrue();
    }
}
