package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.pinning.BindPinner;
import io.rediacc.gpu.gate.pinning.Pins;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Not a test (surefire runs *Test and *Properties only): the policy's CPU per create, in process, as
 * the data plane calls it for {@code bench/gate-dataplane.sh}'s 4 KiB create body (issue 34), run as root
 * ({@code bench/gate-create-path.sh}). For each body given (the same body with 0, 1 and 8 host binds,
 * rounds interleaved): {@code onHead}, {@code onBody}, {@code onVolumes} (its named volume {@code hf-cache}
 * exists, answered as the bench's daemon answers it and kept in {@link VolumeAnswers} as the data plane keeps it),
 * {@code pin} and the commit of the daemon's 201 — the event loop's thread CPU per create, split into
 * judge, pin and commit — and the whole process's CPU per create (the pin io thread's journal writes,
 * the unmounts of the pins a sweep removes every 100 creates as after their containers' removal, JIT, GC).
 * No network: what Netty adds is the difference to the gate's CPU per create in the bench. Last, the judging
 * alone (head, body, volumes; no pins) two ways in alternating rounds: with the kept answer's read, and with
 * the answer parsed on every create as the gate did before its read was kept (issue 34).
 *
 * <pre>java -cp ... io.rediacc.gpu.gate.policy.CreatePathBench ROOT ROUNDS BODY-FILE...</pre>
 */
public final class CreatePathBench {

    private CreatePathBench() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath();
        int rounds = Integer.parseInt(args[1]);
        int n = args.length - 2;
        byte[][] bodies = new byte[n][];
        RequestHead[] heads = new RequestHead[n];
        for (int b = 0; b < n; b++) {
            bodies[b] = Files.readAllBytes(Path.of(args[b + 2]));
            heads[b] = PolicyTestKit.post("/v1.47/containers/create", bodies[b]);
        }
        Path dir = Files.createTempDirectory("create-path-bench");
        BenchRepo bench = BenchRepo.under(dir, root);
        String guid = bench.guid();
        Path pinRoot = bench.pinRoot();
        Pins pins = bench.pins();
        GatePolicy policy = bench.policy();
        RepoIdentity repo = bench.repo();
        GrantLookup grants = new GrantLookup() {
            @Override
            public boolean loaded() {
                return true;
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                return repoGuid.equals(guid) && cdiName.equals("nvidia.com/gpu=0");
            }
        };
        // the bench daemon's answer for the body's named volume (bench/lib/common.sh), kept as the data plane keeps it
        byte[] volumeAnswer = ("{\"CreatedAt\":\"2026-12-01T00:00:00Z\",\"Driver\":\"local\",\"Labels\":null,"
                + "\"Mountpoint\":\"/var/lib/docker/volumes/hf-cache/_data\",\"Name\":\"hf-cache\",\"Options\":null,"
                + "\"Scope\":\"local\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        VolumeAnswers kept = new VolumeAnswers();
        var daemon = io.rediacc.gpu.contracts.manifest.SocketEndpoint.unix(dir.resolve("d.sock"));
        kept.streamLive(daemon);
        kept.keep(daemon, "hf-cache", volumeAnswer, kept.beforeLookup(daemon));
        // as the data plane looks volumes up: a kept answer with its read, or (not kept) a volume that does not exist
        java.util.function.Function<List<String>, List<StoredVolume>> lookUp = names -> names.stream()
                .map(v -> Objects.requireNonNullElse(kept.stored(daemon, v), new StoredVolume(v, 404, null))).toList();
        // as the gate did before c3d00a2: the kept answer's bytes, parsed again on every create
        java.util.function.Function<List<String>, List<StoredVolume>> parseEachTime = names -> lookUp.apply(names).stream()
                .map(k -> new StoredVolume(k.name(), k.status(), k.body())).toList();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[][] judge = new long[n][rounds];
        long[][] pin = new long[n][rounds];
        long[][] commit = new long[n][rounds];
        long[] processCpu = new long[n];
        int warm = rounds / 5;
        for (int r = 0; r < rounds; r++) {
            for (int b = 0; b < n; b++) {
                long p0 = os.getProcessCpuTime();
                long t0 = threads.getCurrentThreadCpuTime();
                GatePolicy.Body body = new GatePolicy.Body(bodies[b]);
                HeadVerdict head = policy.onHead(heads[b], repo, grants);
                if (!(head instanceof HeadVerdict.InspectBody)) {
                    throw new IllegalStateException("head: " + head);
                }
                Verdict verdict = policy.onBody(heads[b], body, repo, grants);
                if (verdict instanceof Verdict.InspectVolumes inspect) {
                    verdict = policy.onVolumes(lookUp.apply(inspect.names()), repo);
                }
                if (!(verdict instanceof Verdict.Allow)) {
                    throw new IllegalStateException("verdict: " + verdict);
                }
                long t1 = threads.getCurrentThreadCpuTime();
                GatePolicy.Pinned pinned = policy.pin(heads[b], body, repo);
                if (pinned.refusal() != null) {
                    throw new IllegalStateException(pinned.refusal().message());
                }
                long t2 = threads.getCurrentThreadCpuTime();
                if (pinned.token() != null) {
                    policy.settlePins(repo, pinned.token(), true);
                }
                long t3 = threads.getCurrentThreadCpuTime();
                judge[b][r] = t1 - t0;
                pin[b][r] = t2 - t1;
                commit[b][r] = t3 - t2;
                if (r % 100 == 99) {
                    // their containers are gone: the pins go (unmounted on the io thread), as a sweep does
                    pins.sweep(guid, Set.of(), Set.of(), System.currentTimeMillis());
                    pins.flush();
                }
                if (r >= warm) {
                    processCpu[b] += os.getProcessCpuTime() - p0;
                }
            }
        }
        pins.sweep(guid, Set.of(), Set.of(), System.currentTimeMillis());
        pins.flush();
        System.out.printf("create-path: %d rounds (first %d warm-up), %d cores, load %s%n", rounds, warm,
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).strip());
        System.out.println("| body | binds | judge µs (thread CPU, mean) | pin µs | commit µs | request path µs | process CPU µs per create |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int b = 0; b < n; b++) {
            System.out.printf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |%n", Path.of(args[b + 2]).getFileName(),
                    binds(bodies[b]), mean(judge[b], warm), mean(pin[b], warm), mean(commit[b], warm),
                    mean(judge[b], warm) + mean(pin[b], warm) + mean(commit[b], warm), processCpu[b] / 1e3 / (rounds - warm));
        }
        // judging alone, the kept answer's read against its bytes parsed each create (issue 34): batches of
        // BATCH creates, ways and bodies alternating, the median batch of each (a collection or a compilation
        // lands in a few batches, not in the figure)
        int batches = Math.max(20, rounds / 25);
        double[][][] batch = new double[2][n][batches];
        for (int r = 0; r < batches + batches / 4; r++) {
            for (int way = 0; way < 2; way++) {
                int w = (r % 2 == 0) ? way : 1 - way;
                var volumes = w == 0 ? lookUp : parseEachTime;
                for (int b = 0; b < n; b++) {
                    long t0 = threads.getCurrentThreadCpuTime();
                    for (int i = 0; i < BATCH; i++) {
                        GatePolicy.Body body = new GatePolicy.Body(bodies[b]);
                        policy.onHead(heads[b], repo, grants);
                        Verdict verdict = policy.onBody(heads[b], body, repo, grants);
                        if (verdict instanceof Verdict.InspectVolumes inspect) {
                            verdict = policy.onVolumes(volumes.apply(inspect.names()), repo);
                        }
                        if (!(verdict instanceof Verdict.Allow)) {
                            throw new IllegalStateException("verdict: " + verdict);
                        }
                    }
                    if (r >= batches / 4) {
                        batch[w][b][r - batches / 4] = (threads.getCurrentThreadCpuTime() - t0) / 1e3 / BATCH;
                    }
                }
            }
        }
        System.out.println();
        System.out.printf("judging alone: %d batches of %d creates a way and body, median batch%n", batches, BATCH);
        System.out.println("| body | judge µs, the kept answer's read | judge µs, its bytes parsed each create | read/parsed |");
        System.out.println("|---|---|---|---|");
        for (int b = 0; b < n; b++) {
            double read = median(batch[0][b]);
            double parsed = median(batch[1][b]);
            System.out.printf("| %s | %.2f | %.2f | %.3f |%n", Path.of(args[b + 2]).getFileName(), read, parsed, read / parsed);
        }
        List<Path> left = BindPinner.mountsUnder(pinRoot);
        BindPinner.unmountAll(pinRoot);
        if (!left.isEmpty()) {
            System.out.println("mounts left after the last sweep: " + left.size());
            System.exit(1);
        }
    }

    private static final int BATCH = 200;

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double mean(long[] ns, int from) {
        long sum = 0;
        for (int i = from; i < ns.length; i++) {
            sum += ns[i];
        }
        return sum / 1e3 / (ns.length - from);
    }

    /** The host-path binds of a create body (Binds entries with an absolute source). */
    private static int binds(byte[] body) {
        JsonValue.JsonObject root = (JsonValue.JsonObject) GoJsonReader.read(body, GoJsonReader.Duplicates.REFUSE_FOLDED);
        JsonValue.JsonObject hc = (JsonValue.JsonObject) root.field("HostConfig", "HostConfig");
        return (int) GoJsonTypes.strings(hc.field("Binds", "Binds"), "Binds").stream().filter(s -> s.startsWith("/")).count();
    }
}
