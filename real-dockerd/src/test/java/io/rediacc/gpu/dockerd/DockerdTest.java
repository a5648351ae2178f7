package io.rediacc.gpu.dockerd;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real dockerd from the kit: CDI injects exactly the named device nodes (real character nodes),
 * the image's nvidia-smi lists what it was given, and closing leaves no process and no mount.
 * Fails (never skips) where real daemons cannot run: CI on this machine kind must run it.
 */
class DockerdTest {

    @TempDir
    static Path dir;
    static DockerdKit kit;
    static Dockerd daemon;
    static final List<GpuCard> CARDS = List.of(new GpuCard(0, "NVIDIA H100 80GB HBM3", "GPU-00000000-1111-2222-3333-444444444444"),
            new GpuCard(1, "NVIDIA H100 80GB HBM3", "GPU-55555555-6666-7777-8888-999999999999"));

    @BeforeAll
    static void start() throws IOException {
        kit = DockerdKit.prepare();
        Path dev = Files.createDirectories(dir.resolve("machine/dev"));
        mknod(dev.resolve("nvidia0"), 195, 0);
        mknod(dev.resolve("nvidia1"), 195, 1);
        mknod(dev.resolve("nvidiactl"), 195, 255);
        Path cdi = Files.createDirectories(dir.resolve("machine/etc/cdi"));
        Files.writeString(cdi.resolve("nvidia.yaml"), """
                cdiVersion: 0.5.0
                kind: nvidia.com/gpu
                devices:
                  - name: "0"
                    containerEdits:
                      deviceNodes: [{path: /dev/nvidia0, hostPath: %1$s/nvidia0}]
                  - name: "1"
                    containerEdits:
                      deviceNodes: [{path: /dev/nvidia1, hostPath: %1$s/nvidia1}]
                  - name: all
                    containerEdits:
                      deviceNodes: [{path: /dev/nvidia0, hostPath: %1$s/nvidia0}, {path: /dev/nvidia1, hostPath: %1$s/nvidia1}]
                containerEdits:
                  deviceNodes: [{path: /dev/nvidiactl, hostPath: %1$s/nvidiactl}]
                """.formatted(dev));
        daemon = Dockerd.start(kit, dir.resolve("daemon"), dir.resolve("run/docker.sock"), List.of(cdi));
        BaseImage.importInto(daemon, CARDS);
    }

    @AfterAll
    static void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void cdiGivesTheNamedCardsAndNvidiaSmiListsThem() {
        assertThat(docker("run", "--rm", "--device", "nvidia.com/gpu=all", BaseImage.TAG, "nvidia-smi", "-L"))
                .isEqualTo("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-1111-2222-3333-444444444444)\n"
                        + "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-55555555-6666-7777-8888-999999999999)\n");
        assertThat(docker("run", "--rm", "--device", "nvidia.com/gpu=1", BaseImage.TAG, "nvidia-smi", "-L"))
                .isEqualTo("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-55555555-6666-7777-8888-999999999999)\n");
        assertThat(docker("run", "--rm", "--device", "nvidia.com/gpu=0", BaseImage.TAG, "ls", "-l", "/dev/nvidia0"))
                .startsWith("crw").contains("195,   0");
        assertThat(docker("run", "--rm", BaseImage.TAG, "sh", "-c", "ls /dev | grep nvidia; nvidia-smi -L; echo exit=$?"))
                .contains("couldn't communicate with the NVIDIA driver").contains("exit=9");
    }

    @Test
    void theDaemonIsTheKitsWithCdiOnItsSpecDirectory() throws IOException {
        assertThat(daemon.get("/version")).contains("\"Version\":\"" + kit.dockerdVersion().text().replaceAll("\\+.*", ""));
        assertThat(daemon.get("/info")).contains(dir.resolve("machine/etc/cdi").toString());
    }

    @Test
    void closingLeavesNoProcessAndNoMount() throws IOException {
        Dockerd second = Dockerd.start(kit, dir.resolve("second"), dir.resolve("run/second.sock"), List.of());
        BaseImage.importInto(second, List.of());
        List<ProcessHandle> tree = new ArrayList<>();
        ProcessHandle.of(second.pid()).ifPresent(h -> tree.add(h));
        // a running container: a shim and the container's mounts that the stop has to take down
        String id = dockerOn(second, "run", "-d", BaseImage.TAG, "sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait").strip();
        assertThat(id).hasSizeGreaterThan(10);
        tree.addAll(ProcessHandle.of(second.pid()).orElseThrow().descendants().toList());
        assertThat(tree.stream().filter(h -> h.info().command().orElse("").contains("containerd-shim"))).isNotEmpty();
        assertThat(second.mountsLeft()).isNotEmpty();

        second.close();

        assertThat(tree.stream().filter(ProcessHandle::isAlive).map(h -> h.pid() + " " + h.info().commandLine().orElse("")))
                .isEmpty();
        assertThat(second.mountsLeft()).isEmpty();
        assertThat(second.socket()).doesNotExist();
    }

    private static String docker(String... args) {
        return dockerOn(daemon, args);
    }

    static String dockerOn(Dockerd d, String... args) {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        try {
            // stdout only: the daemon warns on stderr that it has no bridge network ("IPv4 forwarding is disabled")
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("DOCKER_HOST", d.host());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(60, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void mknod(Path node, int major, int minor) throws IOException {
        try {
            Process p = new ProcessBuilder("mknod", node.toString(), "c", Integer.toString(major), Integer.toString(minor))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IOException("mknod " + node + ": " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
