package io.rediacc.gpu.dockerd;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The parts of a real Docker daemon, from Debian's packages, extracted (never installed) into a
 * cache outside the work tree: {@code dockerd}, {@code containerd}, {@code runc}, {@code tini} (the
 * daemon's subreaper), {@code busybox} (the test image) and the compose CLI plugin. The first use
 * fetches them ({@code fetch-dockerd.sh}, beside this class); later uses are offline.
 *
 * <p>Cache: {@code $REDIACC_DOCKERD_CACHE}, else {@code /var/cache/rediacc-gpu/dockerd} (root), else
 * {@code $XDG_CACHE_HOME/rediacc-gpu/dockerd}. {@code java -cp real-dockerd.jar io.rediacc.gpu.dockerd.DockerdKit}
 * fetches and prints what is there ({@code .ci/run} does, before the tests).
 */
public final class DockerdKit {

    /** CDI in dockerd: experimental from 25 (features.cdi), on by default from 28. */
    public static final Version MIN_DOCKERD = Version.of(25, 0);
    /**
     * The oldest compose seen sending {@code devices: [nvidia.com/gpu=0]} as a CDI request (2.40.3);
     * 2.26.1 sends it as a host path, which the daemon answers with "no such file or directory".
     */
    public static final Version MIN_COMPOSE_CDI = Version.of(2, 40);

    private static DockerdKit prepared;
    private static DockerdUnavailable unavailable;

    private final Path root;
    private final Version dockerd;
    private final Version containerd;
    private final Version runc;
    private final Version compose;
    private final List<String> packages;

    private DockerdKit(Path root, Version dockerd, Version containerd, Version runc, Version compose, List<String> packages) {
        this.root = root;
        this.dockerd = dockerd;
        this.containerd = containerd;
        this.runc = runc;
        this.compose = compose;
        this.packages = packages;
    }

    /** Fetches (first time) and checks the parts; the answer, good or bad, is kept for the JVM. */
    public static synchronized DockerdKit prepare() {
        if (prepared != null) {
            return prepared;
        }
        if (unavailable != null) {
            throw unavailable;
        }
        try {
            prepared = load(cacheDir());
            return prepared;
        } catch (DockerdUnavailable e) {
            unavailable = e;
            throw e;
        }
    }

    /** Why {@link #prepare()} fails here, or empty when real daemons can run. */
    public static Optional<String> unavailableReason() {
        try {
            prepare();
            return Optional.empty();
        } catch (DockerdUnavailable e) {
            return Optional.of(e.getMessage());
        }
    }

    public static Path cacheDir() {
        String env = System.getenv("REDIACC_DOCKERD_CACHE");
        if (env != null && !env.isBlank()) {
            return Path.of(env).toAbsolutePath();
        }
        if (isRoot()) {
            return Path.of("/var/cache/rediacc-gpu/dockerd");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("rediacc-gpu/dockerd");
    }

    static DockerdKit load(Path cache) {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            throw new DockerdUnavailable("real Docker daemons need Linux (this is " + System.getProperty("os.name") + ")");
        }
        if (!isRoot()) {
            throw new DockerdUnavailable("real Docker daemons need root (dockerd mounts, makes cgroups and device nodes); "
                    + "run as root, as CI does");
        }
        Path root = cache.resolve("root");
        if (!Files.exists(root.resolve(".complete"))) {
            fetch(cache);
        }
        Version dockerd = version(root, "dockerd", List.of(root.resolve("usr/sbin/dockerd").toString(), "--version"));
        if (!dockerd.atLeast(MIN_DOCKERD)) {
            throw new DockerdUnavailable("dockerd " + dockerd + " in " + root + " is older than " + MIN_DOCKERD
                    + " (no CDI); fetch again: REDIACC_DOCKERD_REFRESH=1 " + fetchCommand(cache));
        }
        Version containerd = version(root, "containerd", List.of(root.resolve("usr/bin/containerd").toString(), "--version"));
        Version runc = version(root, "runc", List.of(root.resolve("usr/sbin/runc").toString(), "--version"));
        for (String part : List.of("usr/bin/tini", "bin/busybox")) {
            if (!Files.isExecutable(root.resolve(part))) {
                throw new DockerdUnavailable(root.resolve(part) + " is missing; fetch again: REDIACC_DOCKERD_REFRESH=1 "
                        + fetchCommand(cache));
            }
        }
        Path plugin = root.resolve("usr/libexec/docker/cli-plugins/docker-compose");
        Version compose = Files.isExecutable(plugin)
                ? Version.find(run(List.of(plugin.toString(), "version", "--short"))).orElse(null) : null;
        List<String> packages;
        try {
            packages = Files.readAllLines(root.resolve("PACKAGES"));
        } catch (IOException e) {
            packages = List.of();
        }
        return new DockerdKit(root, dockerd, containerd, runc, compose, packages);
    }

    private static void fetch(Path cache) {
        Path log = cache.resolve("fetch.log");
        try {
            Files.createDirectories(cache);
            Path script = cache.resolve("fetch-dockerd.sh");
            try (InputStream in = DockerdKit.class.getResourceAsStream("fetch-dockerd.sh")) {
                Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
            }
            Process p = new ProcessBuilder("bash", script.toString(), cache.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new DockerdUnavailable("fetching Debian's docker.io packages took over 10 minutes; see " + log);
            }
            if (p.exitValue() != 0) {
                throw new DockerdUnavailable("cannot fetch Debian's docker.io packages into " + cache + ": "
                        + String.join(" ", tail(log, 3)) + " (full log: " + log + ")");
            }
        } catch (IOException e) {
            throw new DockerdUnavailable("cannot fetch Debian's docker.io packages into " + cache + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DockerdUnavailable("interrupted while fetching the docker.io packages");
        }
    }

    private static String fetchCommand(Path cache) {
        return "bash real-dockerd/src/main/resources/io/rediacc/gpu/dockerd/fetch-dockerd.sh " + cache;
    }

    private static Version version(Path root, String what, List<String> command) {
        String out = run(command);
        return Version.find(out).orElseThrow(() -> new DockerdUnavailable(
                "cannot tell the version of " + what + " in " + root + " (it printed: " + out.strip() + ")"));
    }

    private static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static List<String> tail(Path log, int n) {
        try {
            List<String> lines = Files.readAllLines(log);
            return lines.subList(Math.max(0, lines.size() - n), lines.size());
        } catch (IOException e) {
            return List.of();
        }
    }

    static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0"); // the effective uid
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return false;
    }

    public Path root() {
        return root;
    }

    Path dockerdBinary() {
        return root.resolve("usr/sbin/dockerd");
    }

    Path tini() {
        return root.resolve("usr/bin/tini");
    }

    Path busybox() {
        return root.resolve("bin/busybox");
    }

    /** The search path a daemon runs with: the extracted binaries first (containerd, runc, shims). */
    String searchPath() {
        return root.resolve("usr/bin") + ":" + root.resolve("usr/sbin") + ":/usr/sbin:/usr/bin:/sbin:/bin";
    }

    public Version dockerdVersion() {
        return dockerd;
    }

    public Optional<Version> composeVersion() {
        return Optional.ofNullable(compose);
    }

    /** The compose CLI plugin: put it in {@code $DOCKER_CONFIG/cli-plugins/}. */
    public Optional<Path> composePlugin() {
        Path plugin = root.resolve("usr/libexec/docker/cli-plugins/docker-compose");
        return Files.isExecutable(plugin) ? Optional.of(plugin) : Optional.empty();
    }

    /** Why the compose plugin here cannot run {@code devices: [<CDI name>]} services, or empty when it can. */
    public Optional<String> composeProblem() {
        if (compose == null) {
            return Optional.of("no docker-compose plugin in " + root);
        }
        if (!compose.atLeast(MIN_COMPOSE_CDI)) {
            return Optional.of("compose " + compose + " sends devices: CDI names as host paths (needs " + MIN_COMPOSE_CDI
                    + " or newer, from Debian's sid suite)");
        }
        return Optional.empty();
    }

    /** Makes {@code dir} a docker CLI config directory whose {@code cli-plugins/docker-compose} is this kit's. */
    public Path dockerConfig(Path dir) throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("cli-plugins"));
        Path link = plugins.resolve("docker-compose");
        Files.deleteIfExists(link);
        if (composePlugin().isPresent()) {
            Files.createSymbolicLink(link, composePlugin().get());
        }
        return dir;
    }

    /** Which versions run, in one line: {@code dockerd 28.5.2+dfsg4, containerd 2.1.9+unknown, runc 1.1.5+ds1, compose 2.40.3-3}. */
    public String describe() {
        return "dockerd " + dockerd + ", containerd " + containerd + ", runc " + runc + ", compose "
                + (compose == null ? "none" : compose);
    }

    /** The Debian packages extracted, {@code name version} each. */
    public List<String> packages() {
        return new ArrayList<>(packages);
    }

    /** Fetches the parts when missing and prints what is there; exit 1 with the reason when they cannot run here. */
    public static void main(String[] args) {
        try {
            DockerdKit kit = prepare();
            System.out.println("real dockerd parts in " + kit.root() + ": " + kit.describe());
            kit.composeProblem().ifPresent(p -> System.out.println("compose: " + p));
        } catch (DockerdUnavailable e) {
            System.err.println("real dockerd unavailable: " + e.getMessage());
            System.exit(1);
        }
    }
}
