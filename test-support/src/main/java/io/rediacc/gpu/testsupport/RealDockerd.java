package io.rediacc.gpu.testsupport;

import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.dockerd.Dockerd;
import io.rediacc.gpu.dockerd.DockerdKit;
import io.rediacc.gpu.dockerd.DockerdUnavailable;
import io.rediacc.gpu.dockerd.GpuCard;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * JUnit 5 extension: a simulated GPU machine with real device nodes and real Docker daemons in front
 * of it, for a test class.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final RealDockerd docker = RealDockerd.withNvidiaCards(2);
 * ... docker.daemon().host()   // unix:///... of a real dockerd that injects nvidia.com/gpu=0|1|all
 * ... docker.startDaemon("fork") // one more daemon on the same machine (a fork's repo)
 * </pre>
 *
 * The machine: {@code /dev/nvidia<N>} (c 195 N) and {@code /dev/nvidiactl} (c 195 255) made with
 * {@code mknod} under a temporary root, and an NVIDIA-shaped CDI spec in its {@code etc/cdi}
 * (device nodes only) naming {@code nvidia.com/gpu=<N>}, each card's UUID and {@code all}. Every
 * daemon has {@link BaseImage#TAG} imported, whose {@code nvidia-smi -L} lists what CDI gave the
 * container. Where real daemons cannot run (not root, packages unreachable), {@code beforeAll}
 * fails with the reason — it never skips: CI on this machine kind must run these tests.
 * {@code afterAll} stops every daemon; none leaves a process or a mount.
 */
public final class RealDockerd implements BeforeAllCallback, AfterAllCallback {

    private final int nvidiaCards;
    private final List<Dockerd> daemons = new ArrayList<>();
    private final List<GpuCard> cards = new ArrayList<>();
    private Path dir;
    private DockerdKit kit;

    private RealDockerd(int nvidiaCards) {
        this.nvidiaCards = nvidiaCards;
    }

    public static RealDockerd withNvidiaCards(int count) {
        return new RealDockerd(count);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        try {
            kit = DockerdKit.prepare();
        } catch (DockerdUnavailable e) {
            throw new AssertionError("this test needs real Docker daemons: " + e.getMessage(), e);
        }
        dir = Files.createTempDirectory("real-dockerd");
        Path dev = Files.createDirectories(root().resolve("dev"));
        mknod(dev.resolve("nvidiactl"), 195, 255);
        for (int i = 0; i < nvidiaCards; i++) {
            mknod(dev.resolve("nvidia" + i), 195, i);
            cards.add(new GpuCard(i, "NVIDIA H100 80GB HBM3",
                    String.format(Locale.ROOT, "GPU-%08x-0000-4000-8000-%012d", context.getRequiredTestClass().getName().hashCode(), i)));
        }
        Files.createDirectories(cdiDir());
        Files.writeString(cdiDir().resolve("nvidia.yaml"), nvidiaSpec());
        startDaemon("repo");
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        List<String> left = new ArrayList<>();
        for (Dockerd d : daemons) {
            d.close();
            left.addAll(d.mountsLeft());
        }
        daemons.clear();
        if (!left.isEmpty()) {
            throw new AssertionError("real dockerd left mounts behind: " + left);
        }
        deleteTree(dir);
    }

    /** The first daemon, started before the tests. */
    public Dockerd daemon() {
        return daemons.get(0);
    }

    /** Starts one more daemon on the same machine (same CDI specs), image imported; stopped after the class. */
    public Dockerd startDaemon(String name) throws IOException {
        Dockerd d = Dockerd.start(kit, dir.resolve("daemons").resolve(name), dir.resolve("run").resolve(name + ".sock"),
                List.of(cdiDir()));
        daemons.add(d);
        BaseImage.importInto(d, cards);
        return d;
    }

    public DockerdKit kit() {
        return kit;
    }

    /** The simulated machine's root: {@code dev/}, {@code etc/cdi/}. */
    public Path root() {
        return dir.resolve("machine");
    }

    public Path cdiDir() {
        return root().resolve("etc/cdi");
    }

    public List<GpuCard> cards() {
        return List.copyOf(cards);
    }

    /** What {@code nvidia-smi -L} prints in a container given the cards with these minors. */
    public String nvidiaSmiL(int... minors) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < minors.length; i++) {
            GpuCard c = cards.get(minors[i]);
            out.append("GPU ").append(i).append(": ").append(c.name()).append(" (UUID: ").append(c.uuid()).append(")\n");
        }
        return out.toString();
    }

    private String nvidiaSpec() {
        Path dev = root().resolve("dev");
        StringBuilder y = new StringBuilder("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n");
        StringBuilder all = new StringBuilder();
        for (GpuCard c : cards) {
            String node = "{path: /dev/nvidia" + c.minor() + ", hostPath: " + dev.resolve("nvidia" + c.minor()) + "}";
            for (String name : List.of("\"" + c.minor() + "\"", c.uuid())) {
                y.append("  - name: ").append(name).append("\n    containerEdits:\n      deviceNodes: [").append(node).append("]\n");
            }
            all.append(all.length() == 0 ? "" : ", ").append(node);
        }
        y.append("  - name: all\n    containerEdits:\n      deviceNodes: [").append(all).append("]\n");
        y.append("containerEdits:\n  deviceNodes: [{path: /dev/nvidiactl, hostPath: ").append(dev.resolve("nvidiactl")).append("}]\n");
        return y.toString();
    }

    private static void mknod(Path node, int major, int minor) throws IOException {
        Process p = new ProcessBuilder("mknod", "-m", "666", node.toString(), "c", Integer.toString(major), Integer.toString(minor))
                .redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("mknod " + node + " c " + major + " " + minor + ": " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
