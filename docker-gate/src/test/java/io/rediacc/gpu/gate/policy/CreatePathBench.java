package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.pinning.BindPinner;
import io.rediacc.gpu.gate.pinning.Pins;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Not a test (surefire runs *Test and *Properties only): the policy's CPU per create, in process, as
 * the data plane calls it for {@code bench/gate-dataplane.sh}'s 4 KiB create body (issue 34), run as root
 * ({@code bench/gate-create-path.sh}). For each body given (the same body with 0, 1 and 8 host binds,
 * rounds interleaved): {@code onHead}, {@code onBody}, {@code onVolumes} (its named volume does not exist),
 * {@code pin} and the commit of the daemon's 201 — the event loop's thread CPU per create, split into
 * judge, pin and commit — and the whole process's CPU per create (the pin io thread's journal writes,
 * the unmounts of the pins a sweep removes every 100 creates as after their containers' removal, JIT, GC).
 * No network: what Netty adds is the difference to the gate's CPU per create in the bench.
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
                    List<StoredVolume> none = inspect.names().stream().map(v -> new StoredVolume(v, 404, null)).toList();
                    verdict = policy.onVolumes(none, repo);
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
        List<Path> left = BindPinner.mountsUnder(pinRoot);
        BindPinner.unmountAll(pinRoot);
        if (!left.isEmpty()) {
            System.out.println("mounts left after the last sweep: " + left.size());
            System.exit(1);
        }
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
