package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.api.RepoGrantsView;
import io.rediacc.gpu.contracts.events.EventJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * One {@code fleet up} for the ITs that drive the whole local fleet as a user does ({@link ReadmeSessionIT},
 * {@link DashboardIT}, {@link SeedStoryIT}): starting a fleet (Kafka, both services, the machine's
 * setup over SSH, a real dockerd per repo) costs about a minute on 2 cores, far more than any of
 * their tests. They run in that order ({@code junit-platform.properties} orders classes by
 * {@code @Order}): the README's session needs a fresh fleet, so it goes first; the later ones start
 * from {@link #revokeEveryGrant()}; {@link SeedStoryIT} is last, stops the fleet and checks that
 * nothing of it is left. A JVM that ends before that stops the fleet in a shutdown hook.
 */
final class SharedFleet {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    /** The README session's directory: the fleet's state is its {@code .fleet}, as for {@code ./fleet up}. */
    static final Path WORK = Path.of("target/readme-session").toAbsolutePath();
    static final Path STATE = WORK.resolve(".fleet");
    static final Path LOG = STATE.resolve("fleet.log");
    static final String MACHINE = Fleet.MACHINE;
    static final List<String> REPOS = List.of("gpu-a", "gpu-a-fork");

    record Result(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    private static SharedFleet running;
    private static boolean used;

    private final Process fleet;
    final Map<String, String> env;

    private SharedFleet(Process fleet, Map<String, String> env) {
        this.fleet = fleet;
        this.env = env;
    }

    /** The README session's fleet: one nothing has used yet (it fails clearly when a class ran before it). */
    static synchronized SharedFleet fresh() throws Exception {
        if (used) {
            throw new IllegalStateException("the shared fleet was used before the README session: "
                    + "ReadmeSessionIT must run first (local-fleet's junit-platform.properties orders the classes by @Order)");
        }
        return get();
    }

    /** The running fleet, started on first use. */
    static synchronized SharedFleet get() throws Exception {
        used = true;
        if (running == null) {
            running = start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    stop();
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }, "shared-fleet-stop"));
        }
        return running;
    }

    private static SharedFleet start() throws Exception {
        // a fresh fleet: new machine, repo GUIDs, broker and databases (and no daemon a killed run left)
        LocalMachine.cleanUpDaemons(STATE.resolve("machine"));
        if (Files.exists(WORK)) {
            try (var paths = Files.walk(WORK)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(STATE);
        // C1 only and the serial collector, as the fleet's children (Services, KafkaBroker) and the test JVMs run: the
        // fleet's own JVM starts the rest, serves rdc's SSH and then waits; C2's and G1's threads cost it CPU that CI's
        // 2 cores would rather give the tests (22 s of CPU with the defaults in a loaded run)
        // It maps class-data archives but records none: its children live until the last shared IT ends, and five
        // dumps one after another in its stop (CI-4: SeedStoryIT 132 -> 215 s) came at the very end of CI, when no
        // later start could use them; the ITs' own shorter-lived services record them.
        Process fleet = new ProcessBuilder(KafkaBroker.javaBin(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-D" + ClassDataArchive.RECORD + "=false",
                "-Dfleet.root=" + REPO, "-Dfleet.state=" + STATE,
                "-jar", REPO.resolve("local-fleet/target/local-fleet.jar").toString(), "up")
                .redirectErrorStream(true).redirectOutput(LOG.toFile()).start();
        try {
            // a bound to give up at, not a wait: on a loaded 2-core machine the machine's setup alone took over 5 minutes
            await("the fleet ready").atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(300)).until(() -> {
                if (!fleet.isAlive()) {
                    throw new IllegalStateException("the fleet ended");
                }
                return Files.exists(STATE.resolve("ready"));
            });
        } catch (RuntimeException e) {
            fleet.destroy();
            throw new IllegalStateException("the fleet did not start (" + e.getMessage() + "):\n" + Files.readString(LOG), e);
        }
        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(STATE.resolve("fleet.env"))) {
            if (line.startsWith("export ")) {
                String kv = line.substring("export ".length());
                int eq = kv.indexOf('=');
                env.put(kv.substring(0, eq), kv.substring(eq + 2, kv.length() - 1));
            }
        }
        return new SharedFleet(fleet, Map.copyOf(env));
    }

    /** Stops the fleet (as Ctrl-C stops {@code fleet up}) and drops its databases; a no-op when none runs. */
    static synchronized void stop() throws Exception {
        if (running == null) {
            return;
        }
        Process fleet = running.fleet;
        running = null;
        // listed now: once the fleet's JVM is gone its children belong to init and are no longer its descendants
        List<ProcessHandle> children = fleet.descendants().toList();
        fleet.destroy();
        // a bound: the fleet stops its children (all at once, the broker last), and the first stop of a build's
        // services also writes their class-data archives (ClassDataArchive)
        if (!fleet.waitFor(ChildProcess.START_BOUND.toSeconds(), TimeUnit.SECONDS)) {
            fleet.destroyForcibly();
            // what it did not stop would run on for the rest of the machine's CI runs (CI-3's broker and grant-service
            // ran on through three more runs)
            children.forEach(ProcessHandle::destroyForcibly);
        }
        Fleet f = new Fleet(REPO, STATE);
        try (FleetPostgres pg = FleetPostgres.open(STATE.resolve("postgres"))) {
            pg.dropDatabase(f.databaseName("grants"));
            pg.dropDatabase(f.databaseName("inventory"));
        }
    }

    /** Revokes every grant of the fleet's repos, so that a story starts from a machine nobody holds anything on. */
    void revokeEveryGrant() throws Exception {
        for (String repo : REPOS) {
            Result list = rdc("repo", "gpu", "list", repo + "@" + MACHINE, "-o", "json");
            if (list.exit() != 0) {
                throw new IllegalStateException("rdc repo gpu list " + repo + " failed: " + list.all());
            }
            RepoGrantsView grants = EventJson.fromBytes(list.out().getBytes(StandardCharsets.UTF_8), RepoGrantsView.class);
            for (RepoGrantsView.RepoGrant grant : grants.grants()) {
                Result revoke = rdc("repo", "gpu", "revoke", repo + "@" + MACHINE, "--device", grant.device());
                if (revoke.exit() != 0) {
                    throw new IllegalStateException("rdc repo gpu revoke " + repo + " " + grant.device() + " failed: " + revoke.all());
                }
            }
        }
    }

    Result rdc(String... args) throws IOException, InterruptedException {
        return rdc(Duration.ofSeconds(60), args);
    }

    Result rdc(Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(env.get("RDC")));
        cmd.addAll(List.of(args));
        return run(cmd, Map.of("RDC_GRANT_URL", env.get("RDC_GRANT_URL"), "RDC_INVENTORY_URL", env.get("RDC_INVENTORY_URL"),
                "RDC_TOKEN", env.get("RDC_TOKEN")), timeout);
    }

    /** The docker CLI through the gate of {@code repo} ({@code GPU_A}, {@code GPU_A_FORK}: fleet.env's suffixes). */
    Result docker(String repo, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        return run(cmd, Map.of("DOCKER_HOST", env.get("DOCKER_HOST_" + repo)));
    }

    Result run(List<String> cmd, Map<String, String> extraEnv) throws IOException, InterruptedException {
        return run(cmd, extraEnv, Duration.ofSeconds(60));
    }

    Result run(List<String> cmd, Map<String, String> extraEnv, Duration timeout) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(extraEnv);
        pb.environment().putIfAbsent("DOCKER_CONFIG", STATE.resolve("docker-config").toString());
        Path out = Files.createTempFile(STATE, "out", ".txt");
        Path err = Files.createTempFile(STATE, "err", ".txt");
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(cmd + " did not finish within " + timeout.toSeconds() + " s");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally { // the fleet's state directory is the user's .fleet/: leave no capture files in it
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
