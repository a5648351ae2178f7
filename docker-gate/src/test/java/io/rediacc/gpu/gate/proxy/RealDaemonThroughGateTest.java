package io.rediacc.gpu.gate.proxy;

import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.RealDockerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real docker CLI through the gate in front of a real dockerd with CDI (test-support's
 * {@link RealDockerd}: device nodes made with mknod, the image's nvidia-smi lists what CDI gave the
 * container). What the gate admits is what the daemon then does with a device: a granted name
 * gives the container that card and no other; a container created under a grant is refused its
 * start once the grant is revoked — on the real daemon, which keeps it created and never started.
 * The everyday verbs pass: ps, info, logs -f, exec -it, attach, cp.
 */
class RealDaemonThroughGateTest {

    @RegisterExtension
    static final RealDockerd machine = RealDockerd.withNvidiaCards(2);

    private static final String MACHINE = "m-real";
    private static final String GUID = "44444444-4444-4444-8444-444444444444";
    private static StandaloneGates gates;
    private static Gate gate;
    private static DockerCli docker;
    private static DockerCli direct;

    @BeforeAll
    static void start() throws Exception {
        KafkaTestResource.broker().restart();
        Path dir = Files.createTempDirectory("real-gate");
        Path manifest = dir.resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: %s
                repos:
                  - name: trainer
                    guid: %s
                    listen: unix://%s
                    daemon: %s
                """.formatted(MACHINE, GUID, dir.resolve("gate.sock"), machine.daemon().host()));
        gates = new StandaloneGates();
        gate = gates.start(manifest, dir.resolve("state"), "gate-real", machine.cdiDir());
        docker = new DockerCli("unix://" + dir.resolve("gate.sock"));
        direct = new DockerCli(machine.daemon().host());
        grants("nvidia.com/gpu=0");
    }

    @AfterAll
    static void stop() {
        if (gate != null) {
            gate.close();
        }
        if (gates != null) {
            gates.close();
        }
    }

    private static void grants(String... devices) {
        long version = GrantsTopic.nextVersion();
        GrantsTopic.publish(MACHINE, version, java.util.Arrays.stream(devices)
                .map(d -> GrantsTopic.grant(GUID, "trainer", d)).toArray(io.rediacc.gpu.contracts.events.Grant[]::new));
        Await.until("grant version " + version + " applied", Duration.ofSeconds(30),
                () -> gate.grants().state().version() >= version);
    }

    @Test
    void aGrantedCardIsTheOneTheContainerGetsAndTheOthersAreRefused() {
        DockerCli.Result run = docker.run("run", "--rm", "--device", "nvidia.com/gpu=0", BaseImage.TAG, "sh", "-c",
                "nvidia-smi -L; ls /dev | grep nvidia");
        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(run.stdout()).isEqualTo(machine.nvidiaSmiL(0) + "nvidia0\nnvidiactl\n");

        DockerCli.Result all = docker.run("run", "--rm", "--device", "nvidia.com/gpu=all", BaseImage.TAG, "nvidia-smi", "-L");
        assertThat(all.ok()).isFalse();
        assertThat(all.stderr()).contains("nvidia.com/gpu=all is not granted to repo trainer");
        DockerCli.Result gpus = docker.run("run", "--rm", "--gpus", "all", BaseImage.TAG, "nvidia-smi", "-L");
        assertThat(gpus.ok()).isFalse();
        assertThat(gpus.stderr()).contains("--device nvidia.com/gpu=all");
        // the same request straight to the daemon: it would have given both cards
        assertThat(direct.run("run", "--rm", "--device", "nvidia.com/gpu=all", BaseImage.TAG, "nvidia-smi", "-L").stdout())
                .isEqualTo(machine.nvidiaSmiL(0, 1));
    }

    @Test
    void aContainerCreatedUnderAGrantIsRefusedItsStartAfterTheRevoke() {
        grants("nvidia.com/gpu=0", "nvidia.com/gpu=1");
        DockerCli.Result created = docker.run("create", "--name", "made-under-grant", "--device", "nvidia.com/gpu=1",
                BaseImage.TAG, "nvidia-smi", "-L");
        assertThat(created.ok()).as(created.toString()).isTrue();
        grants("nvidia.com/gpu=0");

        DockerCli.Result start = docker.run("start", "-a", "made-under-grant");
        assertThat(start.ok()).isFalse();
        assertThat(start.stderr()).contains("nvidia.com/gpu=1 is not granted to repo trainer");
        DockerCli.Result state = direct.run("inspect", "--format", "{{.State.Status}} {{.State.StartedAt}}", "made-under-grant");
        assertThat(state.stdout()).as("the daemon never started it").startsWith("created 0001-01-01");

        grants("nvidia.com/gpu=0", "nvidia.com/gpu=1");
        DockerCli.Result again = docker.run("start", "-a", "made-under-grant");
        assertThat(again.ok()).as(again.toString()).isTrue();
        assertThat(again.stdout()).isEqualTo(machine.nvidiaSmiL(1));
        grants("nvidia.com/gpu=0");
    }

    @Test
    void psInfoLogsExecCpAndAttachWorkThroughTheGate() throws Exception {
        DockerCli.Result info = docker.run("info", "--format", "{{.ServerVersion}} {{json .CDISpecDirs}}");
        assertThat(info.ok()).as(info.toString()).isTrue();
        assertThat(info.stdout()).startsWith(machine.kit().dockerdVersion().text()).contains(machine.cdiDir().toString());

        DockerCli.Result started = docker.run("run", "-d", "--name", "talker", BaseImage.TAG, "sh", "-c",
                "echo first; while true; do sleep 0.2; if [ -f /tmp/go ]; then echo copied-in; break; fi; done; sleep 600");
        assertThat(started.ok()).as(started.toString()).isTrue();
        assertThat(docker.run("ps", "--format", "{{.Names}} {{.Status}}").stdout()).contains("talker Up");

        Process logs = docker.start("logs", "-f", "talker");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(logs.getInputStream(), StandardCharsets.UTF_8));
            assertThat(CompletableFuture.supplyAsync(() -> readLine(out)).get(15, TimeUnit.SECONDS)).isEqualTo("first");
            Path file = Files.createTempFile("go", ".txt");
            DockerCli.Result cp = docker.run("cp", file.toString(), "talker:/tmp/go");
            assertThat(cp.ok()).as(cp.toString()).isTrue();
            // logs -f streams what the container prints after the copy: the stream is live through the gate
            assertThat(CompletableFuture.supplyAsync(() -> readLine(out)).get(15, TimeUnit.SECONDS)).isEqualTo("copied-in");
        } finally {
            logs.destroyForcibly();
        }
        DockerCli.Result cpOut = docker.run("cp", "talker:/etc/os-release", "-");
        assertThat(cpOut.ok()).as(cpOut.toString()).isTrue();
        assertThat(cpOut.stdout()).contains("busybox test image");

        DockerCli.Result exec = docker.runWithInput("one\ntwo\n", "exec", "-i", "talker", "cat");
        assertThat(exec.stdout()).isEqualTo("one\ntwo\n");
        // exec -it and attach: script gives the CLI the terminal -t needs
        assertThat(typeInTerminal("exec -it talker sh", "echo typed-$((6*7))\r", "typed-42", "exit\r")).isZero();
        DockerCli.Result shell = docker.run("run", "-dit", "--name", "attachable", BaseImage.TAG, "sh");
        assertThat(shell.ok()).as(shell.toString()).isTrue();
        assertThat(typeInTerminal("attach attachable", "echo attached-$((6*7))\r", "attached-42", "exit\r")).isZero();
        assertThat(direct.run("inspect", "--format", "{{.State.Status}}", "attachable").stdout().strip()).isEqualTo("exited");
        docker.run("rm", "-f", "talker");
    }

    private static int typeInTerminal(String command, String typed, String expected, String end) throws Exception {
        Process p = docker.start(List.of("script", "-q", "-e", "-c", DockerCli.binary() + " " + command, "/dev/null"));
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            DockerCli.awaitRawTerminal(p); // typed before the stream is up, the terminal would echo it itself
            p.getOutputStream().write(typed.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().flush();
            String seen = CompletableFuture.supplyAsync(() -> readUntil(out, expected)).get(15, TimeUnit.SECONDS);
            assertThat(seen).as(command).contains(expected);
            p.getOutputStream().write(end.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().flush();
            assertThat(p.waitFor(15, TimeUnit.SECONDS)).as(command + " ends").isTrue();
            return p.exitValue();
        } finally {
            p.destroyForcibly();
        }
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (java.io.IOException e) {
            return "(" + e.getMessage() + ")";
        }
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
        } catch (java.io.IOException e) {
            // the process ended
        }
        return seen.toString();
    }
}
