package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.rediacc.gpu.gate.support.GateTestResource.MACHINE;
import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static io.rediacc.gpu.gate.support.GateTestResource.REPO_GUID;
import static org.assertj.core.api.Assertions.assertThat;

/** The real docker CLI, through the gate, in front of a recording stand-in daemon. */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class DockerCliThroughGateTest {

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private DockerCli docker;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        InetSocketAddress gate = (InetSocketAddress) lifecycle.gate().boundAddress(REPO).orElseThrow();
        docker = new DockerCli("tcp://127.0.0.1:" + gate.getPort());
    }

    private void grants(String... devices) {
        long version = GrantsTopic.nextVersion();
        GrantsTopic.publish(MACHINE, version, Stream.of(devices)
                .map(d -> GrantsTopic.grant(REPO_GUID, REPO, d)).toArray(io.rediacc.gpu.contracts.events.Grant[]::new));
        Await.until("grant version " + version + " applied", Duration.ofSeconds(20),
                () -> lifecycle.gate().grants().state().version() >= version);
    }

    @Test
    void deviceRunIsAdmittedWithItsGrant() {
        grants("nvidia.com/gpu=0");

        DockerCli.Result run = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "granted", "busybox", "true");

        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(run.stdout()).contains("hello from granted");
        assertThat(daemon.requests("POST", "/containers/create")).singleElement()
                .satisfies(r -> assertThat(r.bodyText()).contains("nvidia.com/gpu=0"));
        assertThat(daemon.saw("POST", "/containers/[^/]+/start")).isTrue();
    }

    @Test
    void deviceRunWithoutGrantIsRefusedWithTheGrantToAdd() {
        grants("nvidia.com/gpu=1");

        DockerCli.Result run = docker.run("run", "--device", "nvidia.com/gpu=0", "busybox", "true");

        assertThat(run.ok()).isFalse();
        assertThat(run.stderr()).contains("nvidia.com/gpu=0").contains("is not granted to repo " + REPO)
                .contains("rdc repo gpu grant " + REPO + "@" + MACHINE + " --device nvidia.com/gpu=0");
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    static Stream<Arguments> refusedSpellings() {
        return Stream.of(
                Arguments.of("gpus all", List.of("--gpus", "all")),
                Arguments.of("runtime nvidia", List.of("--runtime", "nvidia")),
                Arguments.of("privileged", List.of("--privileged")),
                Arguments.of("raw render node", List.of("--device", "/dev/dri/renderD128")),
                Arguments.of("bind of /dev", List.of("-v", "/dev:/dev")),
                Arguments.of("mount under /dev", List.of("--mount", "type=bind,source=/dev/dri,target=/dev/dri")),
                Arguments.of("device cgroup rule", List.of("--device-cgroup-rule", "c 226:* rmw")));
    }

    @ParameterizedTest(name = "{0} is refused and never reaches the daemon")
    @MethodSource("refusedSpellings")
    void hardwareSpellingsAreRefusedEvenWithAGrant(String what, List<String> flags) {
        grants("nvidia.com/gpu=all", "nvidia.com/gpu=0");
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(flags);
        args.addAll(List.of("busybox", "true"));

        DockerCli.Result run = docker.run(args.toArray(String[]::new));

        assertThat(run.ok()).as(run.toString()).isFalse();
        assertThat(run.stderr()).contains("Error response from daemon");
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void privilegedExecIsRefusedAndNeverReachesTheDaemon() {
        String id = daemon.addContainer("running", "{\"Image\":\"busybox\",\"HostConfig\":{}}");

        DockerCli.Result exec = docker.run("exec", "--privileged", id, "true");

        assertThat(exec.ok()).as(exec.toString()).isFalse();
        assertThat(exec.stderr()).contains("Error response from daemon");
        assertThat(daemon.saw("POST", "/containers/[^/]+/exec")).isFalse();
    }

    @Test
    void volumeBindingADeviceIsRefusedAndNeverReachesTheDaemon() {
        DockerCli.Result create = docker.run("volume", "create", "--opt", "device=/dev/dri", "--opt", "o=bind",
                "--opt", "type=none", "dri");

        assertThat(create.ok()).as(create.toString()).isFalse();
        assertThat(create.stderr()).contains("Error response from daemon");
        assertThat(daemon.saw("POST", "/volumes/create")).isFalse();
    }

    @Test
    void interactiveRunStreamsBothWaysThroughTheHijack() {
        DockerCli.Result run = docker.runWithInput("ping\npong\n", "run", "-i", "--name", "echo", "busybox", "cat");

        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(run.stdout()).as("output written after stdin closed arrives too").isEqualTo("ping\npong\nstdin closed\n");
        assertThat(daemon.requests("POST", "/containers/[^/]+/attach")).singleElement()
                .satisfies(r -> assertThat(r.headers()).containsEntry("upgrade", "tcp"));
    }

    @Test
    void interactiveExecStreamsBothWaysThroughTheHijack() {
        String id = daemon.addContainer("exec-target", "{\"Image\":\"busybox\",\"HostConfig\":{}}");

        DockerCli.Result exec = docker.runWithInput("one\ntwo\n", "exec", "-i", id, "cat");

        assertThat(exec.ok()).as(exec.toString()).isTrue();
        assertThat(exec.stdout()).isEqualTo("one\ntwo\nstdin closed\n");
        assertThat(daemon.saw("POST", "/exec/[^/]+/start")).isTrue();
    }

    @Test
    void terminalRunAndExecStreamBothWaysThroughTheHijack() throws Exception {
        String id = daemon.addContainer("tty-target", "{\"Image\":\"busybox\",\"Tty\":true,\"HostConfig\":{}}");
        for (String command : List.of("run -it --name tty busybox sh", "exec -it " + id + " sh")) {
            daemon.clear();
            // script gives the CLI the terminal that -t needs; Ctrl-D ends the stand-in's "shell".
            Process p = docker.start(List.of("script", "-q", "-e", "-c", DockerCli.binary() + " " + command, "/dev/null"));
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                // Type only once the stream is up: before that the terminal is not in raw mode yet
                // and would echo (and swallow Ctrl-D) itself.
                Await.until("the hijacked stream is up", Duration.ofSeconds(15), () ->
                        daemon.saw("POST", "/containers/[^/]+/start") || daemon.saw("POST", "/exec/[^/]+/start"));
                DockerCli.awaitRawTerminal(p);
                p.getOutputStream().write("typed through a tty\r".getBytes(StandardCharsets.UTF_8));
                p.getOutputStream().flush();
                String echoed = CompletableFuture.supplyAsync(() -> readUntil(out, "typed through a tty"))
                        .get(15, TimeUnit.SECONDS);
                assertThat(echoed).as(command).contains("typed through a tty");

                p.getOutputStream().write(4);
                p.getOutputStream().flush();
                boolean ended = p.waitFor(15, TimeUnit.SECONDS);
                assertThat(ended).as(command + " ends; daemon saw " + daemon.received().stream()
                        .map(r -> r.method() + " " + r.uri()).toList()).isTrue();
                assertThat(p.exitValue()).as(command).isZero();
            } finally {
                p.destroyForcibly();
            }
        }
        assertThat(daemon.saw("POST", "/exec/[^/]+/start")).isTrue();
    }

    private static String readUntil(BufferedReader reader, String text) {
        StringBuilder seen = new StringBuilder();
        try {
            int c;
            while ((c = reader.read()) >= 0) {
                seen.append((char) c);
                if (seen.indexOf(text) >= 0) {
                    return seen.toString();
                }
            }
            return seen.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void attachWithoutUpgradeGetsTheRawStreamAndKeepsHalfClose() throws Exception {
        String id = daemon.addContainer("old-client", "{\"Image\":\"busybox\",\"OpenStdin\":true,\"HostConfig\":{}}");
        InetSocketAddress gate = (InetSocketAddress) lifecycle.gate().boundAddress(REPO).orElseThrow();
        try (java.net.Socket attach = new java.net.Socket("127.0.0.1", gate.getPort())) {
            attach.setSoTimeout(10_000);
            // A client may hijack without "Upgrade" (old clients did): the daemon answers 200 and a raw stream, no length.
            // (1.24: the oldest version the daemon serves; the gate refuses what it does not serve.)
            attach.getOutputStream().write(("POST /v1.24/containers/" + id + "/attach?stream=1&stdin=1&stdout=1 HTTP/1.1\r\n"
                    + "Host: docker\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            java.io.InputStream in = attach.getInputStream();
            String head = readHead(in);
            assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("application/vnd.docker.raw-stream");

            assertThat(docker.run("start", id).ok()).isTrue();
            attach.getOutputStream().write("raw bytes\n".getBytes(StandardCharsets.US_ASCII));
            attach.shutdownOutput();
            byte[] rest = in.readAllBytes();

            assertThat(demultiplex(rest)).isEqualTo("raw bytes\nstdin closed\n");
        }
    }

    private static String readHead(java.io.InputStream in) throws java.io.IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            head.append((char) c);
        }
        return head.toString();
    }

    /** Payloads of Docker's multiplexed stream (8-byte frame headers). */
    private static String demultiplex(byte[] stream) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i + 8 <= stream.length) {
            int size = ((stream[i + 4] & 0xff) << 24) | ((stream[i + 5] & 0xff) << 16) | ((stream[i + 6] & 0xff) << 8)
                    | (stream[i + 7] & 0xff);
            out.append(new String(stream, i + 8, size, StandardCharsets.UTF_8));
            i += 8 + size;
        }
        return out.toString();
    }

    @Test
    void logsFollowStreamsLinesAsTheyArrive() throws Exception {
        String id = daemon.addContainer("logger", "{\"Image\":\"busybox\",\"HostConfig\":{}}");
        daemon.holdStreams();
        Process logs = docker.start("logs", "-f", id);
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(logs.getInputStream(), StandardCharsets.UTF_8));
            String first = CompletableFuture.supplyAsync(() -> readLine(out)).get(15, TimeUnit.SECONDS);

            assertThat(first).isEqualTo("log line 1");
            assertThat(logs.isAlive()).as("the stream is still open").isTrue();

            daemon.releaseStreams();
            assertThat(CompletableFuture.supplyAsync(() -> readLine(out)).get(15, TimeUnit.SECONDS)).isEqualTo("log line 2");
            assertThat(logs.waitFor(15, TimeUnit.SECONDS)).isTrue();
            assertThat(logs.exitValue()).isZero();
        } finally {
            daemon.releaseStreams();
            logs.destroyForcibly();
        }
    }

    @Test
    void eventsStreamAsTheyHappen() throws Exception {
        daemon.holdStreams();
        Process events = docker.start("events", "--format", "{{.Action}} {{.Actor.Attributes.name}}");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(events.getInputStream(), StandardCharsets.UTF_8));
            String first = CompletableFuture.supplyAsync(() -> readLine(out)).get(15, TimeUnit.SECONDS);

            assertThat(first).isEqualTo("start first");
            assertThat(events.isAlive()).as("the stream is still open").isTrue();

            daemon.releaseStreams();
            assertThat(CompletableFuture.supplyAsync(() -> readLine(out)).get(15, TimeUnit.SECONDS)).isEqualTo("die second");
        } finally {
            daemon.releaseStreams();
            events.destroyForcibly();
        }
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
