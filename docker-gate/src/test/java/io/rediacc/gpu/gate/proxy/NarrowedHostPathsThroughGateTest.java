package io.rediacc.gpu.gate.proxy;

import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.testsupport.RealDockerd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A root the operator takes out of a repo's hostPaths takes back what the repo's containers had pinned beneath it
 * (a red team found, 2026-12-07, that a container created before the change still started with the bind): at the
 * manifest's reload the gate drops those pins, so the real daemon's next start of the container fails instead of
 * mounting what the repo may no longer reach.
 */
class NarrowedHostPathsThroughGateTest {

    private static final String GUID = "55555555-5555-4555-8555-555555555555";

    @RegisterExtension
    static final RealDockerd docker = RealDockerd.withNvidiaCards(0);

    private static String manifest(Path root, Path daemonRoot, String hostPaths) {
        return """
                machine: m-narrow
                repos:
                  - name: narrow
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                    hostPaths: [%s]
                    daemonDataRoot: %s
                """.formatted(GUID, docker.daemon().host(), hostPaths, daemonRoot);
    }

    private static long pinEntries(Path state) throws IOException {
        Path dir = StandaloneGates.pinRootFor(state).resolve(GUID);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void aContainerPinnedBeneathARootThatLeftHostPathsNoLongerStarts() throws IOException {
        Path dir = Files.createTempDirectory("gate-narrow");
        Path mount = Files.createDirectories(dir.resolve("mounts").resolve(GUID));
        Files.createDirectories(mount.resolve("app"));
        Files.writeString(mount.resolve("app/hello"), "written on the host\n");
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Path state = dir.resolve("state");
        Files.writeString(manifest, manifest(mount, docker.daemon().dir(), mount.toString()));
        DockerCli direct = new DockerCli(docker.daemon().host());
        String name = "narrow-" + UUID.randomUUID().toString().substring(0, 8);
        try (StandaloneGates gates = new StandaloneGates();
             Gate gate = gates.start(manifest, state, "gate-narrow", docker.cdiDir())) {
            DockerCli viaGate = new DockerCli("tcp://127.0.0.1:" + ((InetSocketAddress) gate.boundAddress("narrow").orElseThrow()).getPort());
            DockerCli.Result made = viaGate.run("create", "--name", name, "--network", "none", "-v", mount + "/app:/app:ro",
                    BaseImage.TAG, "cat", "/app/hello");
            assertThat(made.ok()).as(made.toString()).isTrue();
            DockerCli.Result first = viaGate.run("start", "-a", name);
            assertThat(first.stdout()).as(first.toString()).isEqualTo("written on the host\n");
            assertThat(pinEntries(state)).isEqualTo(1);

            Files.writeString(manifest, manifest(mount, docker.daemon().dir(), ""));
            Await.until("the pin of the root that left hostPaths dropped", Duration.ofSeconds(30), () -> {
                try {
                    return pinEntries(state) == 0;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            DockerCli.Result again = viaGate.run("start", "-a", name);

            assertThat(again.ok()).as(again.toString()).isFalse();
            assertThat(again.stdout()).doesNotContain("written on the host");
        } finally {
            direct.run("rm", "-f", name);
        }
    }
}
