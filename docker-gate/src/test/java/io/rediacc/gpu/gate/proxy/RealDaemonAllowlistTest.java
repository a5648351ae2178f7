package io.rediacc.gpu.gate.proxy;

import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.DockerCli;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the effect matters, against a real dockerd: a bind under the repo's hostPaths really
 * mounts what the repo wrote there, and a volume made on the daemon directly as a bind of the
 * host's /etc (which really shows the host's files) is refused through the gate. The gate is
 * started the way the application starts it ({@link StandaloneGates}), from a manifest.
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
        gate = gates.start(manifest, dir.resolve("state"), "gate-real");
        InetSocketAddress address = (InetSocketAddress) gate.boundAddress("real").orElseThrow();
        viaGate = new DockerCli("tcp://127.0.0.1:" + address.getPort());
        direct = new DockerCli(docker.daemon().host());
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
}
