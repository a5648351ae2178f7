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

    private Path dir;
    private Path mount;
    private Path manifest;
    private Path state;

    @org.junit.jupiter.api.BeforeEach
    void machine() throws IOException {
        dir = Files.createTempDirectory("gate-narrow");
        mount = Files.createDirectories(dir.resolve("mounts").resolve(GUID));
        Files.createDirectories(mount.resolve("app"));
        Files.writeString(mount.resolve("app/hello"), "written on the host\n");
        manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        state = dir.resolve("state");
        Files.writeString(manifest, manifest(mount, docker.daemon().dir(), mount.toString()));
    }

    private static DockerCli viaGate(Gate gate) {
        return new DockerCli("tcp://127.0.0.1:" + ((InetSocketAddress) gate.boundAddress("narrow").orElseThrow()).getPort());
    }

    /** A container through the gate binding the repo's file; its first start prints it. */
    private String createdAndStartedOnce(Gate gate) throws IOException {
        String name = "narrow-" + UUID.randomUUID().toString().substring(0, 8);
        DockerCli.Result made = viaGate(gate).run("create", "--name", name, "--network", "none", "-v", mount + "/app:/app:ro",
                BaseImage.TAG, "cat", "/app/hello");
        assertThat(made.ok()).as(made.toString()).isTrue();
        DockerCli.Result first = viaGate(gate).run("start", "-a", name);
        assertThat(first.stdout()).as(first.toString()).isEqualTo("written on the host\n");
        assertThat(pinEntries(state)).isEqualTo(1);
        return name;
    }

    private void awaitPins(String what, long count) {
        Await.until(what, Duration.ofSeconds(30), () -> {
            try {
                return pinEntries(state) == count;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void aContainerPinnedBeneathARootThatLeftHostPathsNoLongerStarts() throws IOException {
        DockerCli direct = new DockerCli(docker.daemon().host());
        String name = null;
        try (StandaloneGates gates = new StandaloneGates();
             Gate gate = gates.start(manifest, state, "gate-narrow", docker.cdiDir())) {
            name = createdAndStartedOnce(gate);

            Files.writeString(manifest, manifest(mount, docker.daemon().dir(), ""));
            awaitPins("the pin of the root that left hostPaths dropped", 0);
            DockerCli.Result again = viaGate(gate).run("start", "-a", name);

            assertThat(again.ok()).as(again.toString()).isFalse();
            assertThat(again.stdout()).doesNotContain("written on the host");
        } finally {
            if (name != null) {
                direct.run("rm", "-f", name);
            }
        }
    }

    /** A repo taken out of the manifest and put back is judged by its own entry then: its pins stay, its container starts. */
    @Test
    void aRepoPutBackInTheManifestKeepsThePinsOfItsListedRoots() throws IOException {
        DockerCli direct = new DockerCli(docker.daemon().host());
        String name = null;
        try (StandaloneGates gates = new StandaloneGates();
             Gate gate = gates.start(manifest, state, "gate-narrow-back", docker.cdiDir())) {
            name = createdAndStartedOnce(gate);

            Files.writeString(manifest, "machine: m-narrow\nrepos: []\n");
            Await.until("the repo no longer served", Duration.ofSeconds(30), () -> gate.boundAddress("narrow").isEmpty());
            Files.writeString(manifest, manifest(mount, docker.daemon().dir(), mount.toString()));
            Await.until("the repo served again", Duration.ofSeconds(30), () -> gate.boundAddress("narrow").isPresent());
            // a repo served anew answers 503 until the gate has read its daemon's API versions: retry, as it says
            DockerCli.Result[] started = new DockerCli.Result[1];
            String container = name;
            Await.until("an answer other than the gate's 'retry in a few seconds'", Duration.ofSeconds(30), () -> {
                started[0] = viaGate(gate).run("start", "-a", container);
                return started[0].ok() || !started[0].stderr().contains("cannot be checked");
            });
            DockerCli.Result again = started[0];

            assertThat(again.stdout()).as(again.toString()).isEqualTo("written on the host\n");
            assertThat(pinEntries(state)).isEqualTo(1);
        } finally {
            if (name != null) {
                direct.run("rm", "-f", name);
            }
        }
    }
}
