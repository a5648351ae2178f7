package io.rediacc.gpu.gate.pinning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.dockerd.Dockerd;
import io.rediacc.gpu.dockerd.DockerdKit;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.RawHttp;
import io.rediacc.gpu.gate.support.StandaloneGates;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Not a test (surefire runs *Test and *Properties only): issue 30's leak check through a real
 * daemon, run as root by {@code bench/gate-pin-leak.sh}. One real dockerd (test image imported as
 * the real-dockerd tests do) and one gate in front of it, started as the application starts it
 * ({@link StandaloneGates}: pinning on, pins under the gate's pin root), a repo with a hostPaths
 * root. Then {@code cycles} create/remove cycles through the gate's unix socket, raw HTTP, one
 * connection per request as the docker CLI makes one per command:
 *
 * <ul>
 *   <li>most: a create with 1 bind under hostPaths ({@code Binds}), then {@code DELETE ?force=1};</li>
 *   <li>cycle % 10 == 0: 8 binds; == 5: the bind as a {@code Mounts} entry of type bind;</li>
 *   <li>== 3: a local volume {@code o=bind} under hostPaths created through the gate, used by the
 *       container beside its bind, removed after it;</li>
 *   <li>== 7: {@code HostConfig.AutoRemove}, started and left for the daemon to remove itself: the
 *       gate unpins on the daemon's {@code destroy} event ({@code GET /events}).</li>
 * </ul>
 *
 * At the end, after waiting (at most 60 s) for the autoremoved containers' events to settle, it
 * prints what is left — entries in the repo's pin directory, pin records in the gate (memory, and
 * its record on disk: snapshot with the journal replayed), pin mounts in /proc/self/mountinfo, the
 * daemon's mounts, containers and volumes — and the create, remove and start latencies. Exit 1 if
 * anything leaked or a request failed. SIGTERM/SIGINT end the cycles early: the same checks and a
 * partial summary follow, exit 130 if nothing leaked (a second signal exits at once).
 *
 * <pre>java -cp ... io.rediacc.gpu.gate.pinning.PinLeakBench [cycles=10000]</pre>
 */
public final class PinLeakBench {

    private static final String GUID = "77777777-7777-4777-8777-777777777777";
    private static final String MACHINE = "m-pin-leak";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ID = Pattern.compile("\"Id\"\\s*:\\s*\"([0-9a-f]{64})\"");
    private static final int PROGRESS_EVERY = 500;
    private static final long SETTLE_MS = 60_000;

    /** What one cycle creates; {@link #of} picks it from the cycle's number. */
    enum Kind {
        ONE_BIND("1 bind"), EIGHT_BINDS("8 binds"), MOUNTS_BIND("Mounts bind"), VOLUME("o=bind volume + 1 bind"),
        AUTO_REMOVE("AutoRemove, started");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        static Kind of(int cycle) {
            return switch (cycle % 10) {
                case 0 -> EIGHT_BINDS;
                case 3 -> VOLUME;
                case 5 -> MOUNTS_BIND;
                case 7 -> AUTO_REMOVE;
                default -> ONE_BIND;
            };
        }
    }

    /** Nanosecond samples, growable without boxing. */
    static final class Samples {
        private long[] values = new long[1024];
        private int size;

        void add(long ns) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = ns;
        }

        int size() {
            return size;
        }

        /** p50/p99 of the samples from {@code from} on, in ms ("-" when none). */
        String pct(int from) {
            if (size <= from) {
                return "p50 - p99 -";
            }
            long[] s = Arrays.copyOfRange(values, from, size);
            Arrays.sort(s);
            return String.format(Locale.ROOT, "p50 %.1f ms p99 %.1f ms", s[s.length / 2] / 1e6,
                    s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.99) - 1)] / 1e6);
        }

        String pct() {
            return pct(0);
        }
    }

    private final int cycles;
    private final Path dir;
    private final Path root;
    private final Path gateSocket;
    private final Path state;
    private final Dockerd daemon;
    private final StandaloneGates gates;
    private final Gate gate;
    private final String api;
    private final RepoIdentity repo = new RepoIdentity("leak", GUID, MACHINE, false);

    private final Map<Kind, Samples> create = new EnumMap<>(Kind.class);
    private final Samples createAll = new Samples();
    private final Samples remove = new Samples();
    private final Samples start = new Samples();
    private final Samples volumeCreate = new Samples();
    private final Samples volumeRemove = new Samples();
    private final List<String> errors = new ArrayList<>();
    private int errorCount;
    private final int daemonMountsBefore;

    private static volatile boolean stop;
    private static volatile Dockerd toStop;

    private PinLeakBench(int cycles) throws IOException {
        this.cycles = cycles;
        dir = Files.createTempDirectory("gate-pin-leak");
        Path cdi = Files.createDirectories(dir.resolve("machine/etc/cdi"));
        daemon = Dockerd.start(DockerdKit.prepare(), dir.resolve("daemons/repo"), dir.resolve("run/repo.sock"), List.of(cdi));
        toStop = daemon;
        BaseImage.importInto(daemon, List.of());
        root = Files.createDirectories(dir.resolve("mounts").resolve(GUID));
        for (int i = 0; i < 8; i++) {
            Files.createDirectories(root.resolve("work/d" + i));
        }
        Files.createDirectories(root.resolve("work/volume"));
        gateSocket = Files.createDirectories(dir.resolve("gate")).resolve("leak.sock"); // its directory is protected: beside hostPaths, not above
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: %s
                repos:
                  - name: leak
                    guid: %s
                    listen: unix://%s
                    daemon: %s
                    hostPaths: [%s]
                    daemonDataRoot: %s
                """.formatted(MACHINE, GUID, gateSocket, daemon.host(), root, daemon.dir()));
        state = dir.resolve("state");
        gates = new StandaloneGates();
        gate = gates.start(manifest, state, "gate-pin-leak", cdi);
        JsonNode version = JSON.readTree(daemon.get("/version"));
        api = "/v" + version.path("ApiVersion").asText();
        System.out.printf("pin-leak: dockerd %s (API %s), gate pin root %s, hostPaths %s, %d cores, load %s%n",
                version.path("Version").asText(), api.substring(2), gate.pins().root(), root,
                Runtime.getRuntime().availableProcessors(), loadavg());
        daemonMountsBefore = daemon.mountsLeft().size();
        for (Kind k : Kind.values()) {
            create.put(k, new Samples());
        }
    }

    public static void main(String[] args) throws Exception {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        AtomicInteger signals = new AtomicInteger();
        for (String name : List.of("TERM", "INT")) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), s -> {
                if (signals.incrementAndGet() > 1) {
                    System.exit(130); // the hook below still stops the daemon
                }
                System.out.println("pin-leak: SIG" + s.getName() + ": ending after this cycle, then the checks and a partial summary"
                        + " (again to exit at once)");
                stop = true;
            });
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Dockerd d = toStop;
            if (d != null) {
                d.close();
            }
        }, "stop-dockerd"));
        PinLeakBench bench = new PinLeakBench(cycles);
        int status;
        try {
            status = bench.run();
        } finally {
            bench.close();
        }
        System.exit(status);
    }

    private int run() throws IOException {
        long t0 = System.nanoTime();
        int done = 0;
        int windowStart = 0;
        int createsBefore = 0;
        int removesBefore = 0;
        long windowT0 = t0;
        for (int i = 0; i < cycles && !stop; i++) {
            cycle(i);
            done = i + 1;
            if (done % PROGRESS_EVERY == 0) {
                long now = System.nanoTime();
                System.out.printf(Locale.ROOT, "pin-leak: %d/%d cycles, %.0f s (%.1f cycles/s last %d): create %s, rm %s; now %d pin"
                                + " entries, %d pin mounts, %d records; %d errors; load %s%n",
                        done, cycles, (now - t0) / 1e9, (done - windowStart) / ((now - windowT0) / 1e9), done - windowStart,
                        createAll.pct(createsBefore), remove.pct(removesBefore),
                        pinEntries(), pinMounts(), gate.pins().pins(repo).size(), errorCount, loadavg());
                windowStart = done;
                windowT0 = now;
                createsBefore = createAll.size();
                removesBefore = remove.size();
            }
        }
        double cycleSeconds = (System.nanoTime() - t0) / 1e9;
        long s0 = System.nanoTime();
        boolean settled = settle();
        double settleSeconds = (System.nanoTime() - s0) / 1e9;
        return report(done, cycleSeconds, settled, settleSeconds);
    }

    private void cycle(int i) {
        Kind kind = Kind.of(i);
        String name = "leak-" + i;
        String volume = "leak-v-" + i;
        try {
            if (kind == Kind.VOLUME) {
                String body = "{\"Name\":\"" + volume + "\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\","
                        + "\"device\":\"" + root.resolve("work/volume") + "\"}}";
                long t = System.nanoTime();
                String made = call("POST", api + "/volumes/create", body);
                volumeCreate.add(System.nanoTime() - t);
                if (!expect(made, 201, "volume create " + volume)) {
                    return;
                }
            }
            long t = System.nanoTime();
            String made = call("POST", api + "/containers/create?name=" + name, createBody(kind, volume));
            long took = System.nanoTime() - t;
            if (!expect(made, 201, "create " + name + " (" + kind.label + ")")) {
                return;
            }
            create.get(kind).add(took);
            createAll.add(took);
            Matcher id = ID.matcher(made);
            if (!id.find()) {
                error("create " + name + ": no Id in " + oneLine(made));
                return;
            }
            if (kind == Kind.AUTO_REMOVE) {
                t = System.nanoTime();
                String started = call("POST", api + "/containers/" + id.group(1) + "/start", null);
                start.add(System.nanoTime() - t);
                expect(started, 204, "start " + name + " (AutoRemove)");
                return; // the daemon removes it when `true` exits; the gate hears its destroy event
            }
            t = System.nanoTime();
            String gone = call("DELETE", api + "/containers/" + id.group(1) + "?force=1", null);
            remove.add(System.nanoTime() - t);
            expect(gone, 204, "rm " + name);
            if (kind == Kind.VOLUME) {
                t = System.nanoTime();
                String removed = call("DELETE", api + "/volumes/" + volume, null);
                volumeRemove.add(System.nanoTime() - t);
                expect(removed, 204, "volume rm " + volume);
            }
        } catch (RuntimeException e) {
            error("cycle " + i + " (" + kind.label + "): " + e);
        }
    }

    private String createBody(Kind kind, String volume) {
        StringBuilder binds = new StringBuilder();
        int n = kind == Kind.EIGHT_BINDS ? 8 : kind == Kind.MOUNTS_BIND ? 0 : 1;
        for (int b = 0; b < n; b++) {
            binds.append(b == 0 ? "" : ",").append('"').append(root.resolve("work/d" + b)).append(":/d").append(b).append('"');
        }
        if (kind == Kind.VOLUME) {
            binds.append(",\"").append(volume).append(":/v\"");
        }
        StringBuilder host = new StringBuilder("{\"NetworkMode\":\"none\",\"Binds\":[").append(binds).append(']');
        if (kind == Kind.MOUNTS_BIND) {
            host.append(",\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"").append(root.resolve("work/d1")).append("\",\"Target\":\"/m\"}]");
        }
        if (kind == Kind.AUTO_REMOVE) {
            host.append(",\"AutoRemove\":true");
        }
        return "{\"Image\":\"" + BaseImage.TAG + "\",\"Cmd\":[\"true\"],\"Labels\":{\"bench\":\"pin-leak\"},\"HostConfig\":"
                + host.append('}') + "}";
    }

    /** One request through the gate's socket, {@code Connection: close}, as the docker CLI sends one per command. */
    private String call(String method, String target, String body) {
        return RawHttp.requestUnix(gateSocket, method, target, body);
    }

    private boolean expect(String raw, int status, String what) {
        int got = raw.isEmpty() ? -1 : RawHttp.status(raw);
        if (got != status) {
            error(what + ": HTTP " + got + " " + oneLine(raw));
            return false;
        }
        return true;
    }

    private void error(String message) {
        errorCount++;
        if (errors.size() < 20) {
            errors.add(message);
        }
        if (errorCount <= 5) {
            System.out.println("pin-leak: error: " + message);
        }
    }

    /** Waits (Awaitility-style: poll, bounded) for the autoremoved containers' destroy events to reach the gate's sweep. */
    private boolean settle() {
        long deadline = System.currentTimeMillis() + SETTLE_MS;
        while (System.currentTimeMillis() < deadline) {
            if (clean()) {
                return true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    private boolean clean() {
        try {
            return containers() == 0 && volumes() == 0 && pinEntries() == 0 && pinMounts() == 0 && gate.pins().pins(repo).isEmpty();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private int report(int done, double cycleSeconds, boolean settled, double settleSeconds) throws IOException {
        gate.pins().flush(); // the record writes and unmounts the last sweeps scheduled
        int entries = pinEntries();
        int mounts = pinMounts();
        int memory = gate.pins().pins(repo).size();
        int recorded = new PinStore(state).load(GUID).size();
        Path pinsDir = state.resolve("pins");
        long snapshotBytes = size(pinsDir.resolve(GUID + ".json"));
        long journalBytes = size(pinsDir.resolve(GUID + ".journal"));
        int daemonMounts = daemon.mountsLeft().size();
        int containers = containers();
        int volumes = volumes();
        System.out.printf(Locale.ROOT, "pin-leak: %s%d of %d cycles through the gate's socket in %.1f s (%.1f cycles/s); settled %s in %.1f s;"
                        + " load %s%n", done < cycles ? "INTERRUPTED after " : "", done, cycles, cycleSeconds, done / cycleSeconds,
                settled ? "yes" : "NO (60 s)", settleSeconds, loadavg());
        System.out.printf("pin-leak: create (all %d) %s | rm (%d) %s | start of AutoRemove (%d) %s%n", createAll.size(), createAll.pct(),
                remove.size(), remove.pct(), start.size(), start.pct());
        for (Kind k : Kind.values()) {
            System.out.printf("pin-leak:   create, %-24s (%5d) %s%n", k.label, create.get(k).size(), create.get(k).pct());
        }
        System.out.printf("pin-leak:   volume create (%d) %s | volume rm (%d) %s%n", volumeCreate.size(), volumeCreate.pct(),
                volumeRemove.size(), volumeRemove.pct());
        System.out.printf("pin-leak: left: %d pin entries in %s, %d pin records in the gate (%d in its record on disk: snapshot %d B,"
                        + " journal %d B), %d pin mounts in /proc/self/mountinfo, %d daemon mounts (%d before), %d containers,"
                        + " %d volumes; %d request errors%n", entries, gate.pins().root().resolve(GUID), memory, recorded,
                snapshotBytes, journalBytes, mounts, daemonMounts, daemonMountsBefore, containers, volumes, errorCount);
        errors.forEach(e -> System.out.println("pin-leak:   error: " + e));
        boolean leaked = entries != 0 || mounts != 0 || memory != 0 || recorded != 0 || daemonMounts > daemonMountsBefore
                || containers != 0 || volumes != 0;
        System.out.println("pin-leak: " + (leaked ? "LEAKED" : "nothing leaked") + (errorCount > 0 ? ", " + errorCount + " requests failed" : "")
                + (done < cycles ? " (partial run)" : ""));
        return leaked || errorCount > 0 ? 1 : done < cycles ? 130 : 0; // a clean partial run is not a pass
    }

    private int pinEntries() {
        Path d = gate.pins().root().resolve(GUID);
        if (!Files.isDirectory(d)) {
            return 0;
        }
        try (var s = Files.list(d)) {
            return (int) s.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private int pinMounts() {
        return BindPinner.mountsUnder(gate.pins().root()).size();
    }

    private int containers() {
        try {
            return JSON.readTree(daemon.get("/containers/json?all=1")).size();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private int volumes() {
        try {
            JsonNode list = JSON.readTree(daemon.get("/volumes")).path("Volumes");
            return list.isArray() ? list.size() : 0;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long size(Path file) throws IOException {
        return Files.exists(file) ? Files.size(file) : 0;
    }

    private static String loadavg() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static String oneLine(String raw) {
        String s = raw.replace("\r", "").replace('\n', ' ');
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    private void close() {
        gate.close();
        gates.close();
        daemon.close();
        toStop = null;
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException e) {
            System.out.println("pin-leak: could not remove " + dir + ": " + e.getMessage());
        }
    }
}
