package io.rediacc.gpu.dockerd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One real {@code dockerd}, a child process of this JVM, as a repo's daemon: its own data root
 * ({@code DIR/data}), exec root, socket and {@code daemon.json} (CDI on, spec directories given, no
 * iptables, no bridge, vfs). It runs under {@code tini -s}, a subreaper, so the containerd shims
 * it leaves behind stay its descendants and are stopped with it. {@link #close()} stops it and
 * unmounts whatever it left mounted: no process and no mount survives it.
 *
 * <pre>
 * DIR/daemon.json     DIR/dockerd.log     DIR/data/ (images, containers)
 * /run/rediacc-dockerd/&lt;hash of DIR&gt;/   exec root (kept short: containerd's sockets live in it)
 * </pre>
 */
public final class Dockerd implements AutoCloseable {

    private static final Path EXEC_ROOTS = Path.of("/run/rediacc-dockerd");

    private final DockerdKit kit;
    private final Path dir;
    private final Path socket;
    private final Path execRoot;
    private final Process process;

    private Dockerd(DockerdKit kit, Path dir, Path socket, Path execRoot, Process process) {
        this.kit = kit;
        this.dir = dir;
        this.socket = socket;
        this.execRoot = execRoot;
        this.process = process;
    }

    /**
     * Starts a daemon on {@code socket} reading CDI specs from {@code cdiSpecDirs}; returns once it
     * answers {@code /_ping}. A daemon an earlier run left behind in {@code dir} is stopped first.
     */
    public static Dockerd start(DockerdKit kit, Path dir, Path socket, List<Path> cdiSpecDirs) throws IOException {
        dir = Files.createDirectories(dir.toAbsolutePath().normalize());
        Path config = dir.resolve("daemon.json");
        Files.writeString(config, daemonJson(cdiSpecDirs));
        return startWithConfig(kit, dir, socket, config);
    }

    /**
     * Starts a daemon on {@code socket} with the {@code daemon.json} at {@code config} as it is (e.g.
     * a repo daemon's, as {@code rdc machine setup} left it); it must keep this kit's network and
     * storage settings ({@link #daemonJson}: no bridge, no iptables, vfs). Starting it again with the
     * same {@code dir} is a restart.
     */
    public static Dockerd startWithConfig(DockerdKit kit, Path dir, Path socket, Path config) throws IOException {
        dir = Files.createDirectories(dir.toAbsolutePath().normalize());
        socket = socket.toAbsolutePath().normalize();
        Path execRoot = execRootFor(dir);
        cleanUpAfter(dir, execRoot);
        Files.createDirectories(execRoot);
        Files.createDirectories(socket.getParent());
        Files.deleteIfExists(socket);
        List<String> cmd = List.of(kit.tini().toString(), "-s", "--", kit.dockerdBinary().toString(),
                "--config-file", config.toString(), "--data-root", dir.resolve("data").toString(),
                "--exec-root", execRoot.toString(), "--pidfile", execRoot.resolve("docker.pid").toString(),
                "-H", "unix://" + socket);
        Path log = dir.resolve("dockerd.log");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("PATH", kit.searchPath());
        pb.environment().keySet().removeIf(k -> k.startsWith("DOCKER_"));
        Files.writeString(dir.resolve("exec-root"), execRoot.toString());
        Dockerd d = new Dockerd(kit, dir, socket, execRoot, pb.start());
        Files.writeString(dir.resolve("tini.pid"), Long.toString(d.pid()));
        d.awaitPing(60);
        return d;
    }

    /** {@code daemon.json}: features.cdi for dockerd 25-27 (28 has CDI on by default; the key is harmless there). */
    public static String daemonJson(List<Path> cdiSpecDirs) {
        String dirs = cdiSpecDirs.stream().map(p -> "\"" + p.toAbsolutePath().normalize().toString().replace("\"", "\\\"") + "\"")
                .collect(Collectors.joining(", "));
        return """
                {
                  "features": {"cdi": true},
                  "cdi-spec-dirs": [%s],
                  "iptables": false,
                  "ip-masq": false,
                  "ip-forward": false,
                  "bridge": "none",
                  "userland-proxy": false,
                  "storage-driver": "vfs",
                  "shutdown-timeout": 2
                }
                """.formatted(dirs);
    }

    private void awaitPing(int seconds) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("dockerd exited with code " + process.exitValue() + " while starting; last lines of "
                        + log() + ":\n" + tail(20));
            }
            if (Files.exists(socket)) {
                try {
                    if (UnixHttp.call(socket, "GET", "/_ping", null, null).status() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // listening soon
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
        }
        close();
        throw new IOException("dockerd did not answer on " + socket + " within " + seconds + " s; last lines of " + log()
                + ":\n" + tail(20));
    }

    public DockerdKit kit() {
        return kit;
    }

    public Path dir() {
        return dir;
    }

    public Path socket() {
        return socket;
    }

    /** {@code unix:///...}: what {@code DOCKER_HOST} and a repos manifest's {@code daemon} take. */
    public String host() {
        return "unix://" + socket;
    }

    /** The pid of the daemon's process tree (tini; dockerd is its child). */
    public long pid() {
        return process.pid();
    }

    public Path log() {
        return dir.resolve("dockerd.log");
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** The Engine's answer to {@code GET path} (e.g. {@code /version}); for checks and tests. */
    public String get(String path) throws IOException {
        UnixHttp.Response r = UnixHttp.call(socket, "GET", path, null, null);
        if (r.status() != 200) {
            throw new IOException("GET " + path + " on " + socket + ": HTTP " + r.status() + " " + r.body());
        }
        return r.body();
    }

    /**
     * Stops the daemon (SIGTERM: it stops its containers, allowing each {@code shutdown-timeout}, and
     * its containerd), then whatever of its tree is still there, then unmounts what it left mounted.
     */
    @Override
    public void close() {
        List<ProcessHandle> tree = process.descendants().collect(Collectors.toCollection(ArrayList::new));
        if (process.isAlive()) {
            process.destroy(); // tini passes SIGTERM on to dockerd
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    tree.addAll(process.descendants().toList());
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        killAll(tree);
        try {
            unmountUnder(List.of(dir.resolve("data"), execRoot));
            BaseImage.deleteTree(execRoot);
            Files.deleteIfExists(socket);
            Files.deleteIfExists(dir.resolve("tini.pid"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cleaning up after dockerd in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Stops a daemon an earlier process left running in {@code dir} (a killed fleet or test JVM) and
     * unmounts what it left, so a new one starts clean. Also what {@code ./fleet down} calls.
     */
    public static void cleanUpAfter(Path dir, Path execRoot) throws IOException {
        Path pidFile = dir.resolve("tini.pid");
        if (Files.exists(pidFile)) {
            String dataRoot = dir.resolve("data").toString();
            ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim()))
                    .filter(h -> h.info().arguments().map(a -> String.join(" ", a).contains(dataRoot)).orElse(false))
                    .ifPresent(h -> {
                        List<ProcessHandle> tree = new ArrayList<>(h.descendants().toList());
                        h.destroy();
                        h.onExit().completeOnTimeout(h, 30, TimeUnit.SECONDS).join();
                        tree.add(h);
                        killAll(tree);
                    });
            Files.deleteIfExists(pidFile);
        }
        unmountUnder(List.of(dir.resolve("data"), execRoot));
        BaseImage.deleteTree(execRoot);
    }

    /** {@link #cleanUpAfter(Path, Path)} with the exec root a daemon in {@code dir} was started with. */
    public static void cleanUpAfter(Path dir) throws IOException {
        dir = dir.toAbsolutePath().normalize();
        cleanUpAfter(dir, execRootFor(dir));
    }

    /** The exec root of a daemon whose directory is {@code dir}: containerd and its shims name it in their command lines. */
    public static Path execRootFor(Path dir) {
        return EXEC_ROOTS.resolve(hash(dir.toAbsolutePath().normalize().toString()));
    }

    private static void killAll(List<ProcessHandle> tree) {
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
        for (ProcessHandle h : tree) {
            h.onExit().completeOnTimeout(h, 3, TimeUnit.SECONDS).join();
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /** Lazily unmounts every mount point under {@code roots}, deepest first (as this process's mount namespace sees them). */
    static void unmountUnder(List<Path> roots) throws IOException {
        List<String> points = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] f = line.split(" ");
            if (f.length > 4) {
                String point = unescape(f[4]);
                if (roots.stream().anyMatch(r -> point.equals(r.toString()) || point.startsWith(r + "/"))) {
                    points.add(point);
                }
            }
        }
        points.sort(Comparator.comparingInt(String::length).reversed());
        for (String p : points) {
            try {
                Process u = new ProcessBuilder("umount", "-l", p).redirectErrorStream(true).start();
                u.getInputStream().readAllBytes();
                u.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Mount points that are still there under {@code dir}'s data root and exec root (for tests: none after close). */
    public List<String> mountsLeft() throws IOException {
        List<String> left = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] f = line.split(" ");
            String point = f.length > 4 ? unescape(f[4]) : "";
            if (point.startsWith(dir.resolve("data").toString()) || point.startsWith(execRoot.toString())) {
                left.add(point);
            }
        }
        return left;
    }

    private static String unescape(String mountinfoField) {
        return mountinfoField.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    private static String hash(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private String tail(int n) {
        try {
            List<String> lines = Files.readAllLines(log());
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
