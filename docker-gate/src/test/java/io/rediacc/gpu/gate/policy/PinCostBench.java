package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.pinning.BindPinner;
import io.rediacc.gpu.gate.pinning.Pins;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Not a test (surefire runs *Test and *Properties only): what pinning adds to a create in the gate,
 * run as root ({@code bench/gate-pin-cost.sh}). Same run, rounds interleaved: {@link GatePolicy#pin}
 * (parse, openat2, judge, mount(2), MS_PRIVATE, dev/ino check, rewrite, record saved) for create
 * bodies with 0, 1 and 8 binds, then the release of those pins; then {@code cycles} pin/release
 * cycles of a 1-bind create, after which no pin and no mount may be left.
 *
 * <pre>java -cp ... io.rediacc.gpu.gate.policy.PinCostBench [rounds=2000] [cycles=10000]</pre>
 */
public final class PinCostBench {

    private PinCostBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        Path dir = Files.createTempDirectory("pin-bench");
        Path root = Files.createDirectories(dir.resolve("mounts/repo"));
        for (int i = 0; i < 8; i++) {
            Files.createDirectories(root.resolve("work/d" + i));
        }
        BenchRepo bench = BenchRepo.under(dir, root);
        String guid = bench.guid();
        Path pinRoot = bench.pinRoot();
        Pins pins = bench.pins();
        GatePolicy policy = bench.policy();
        RepoIdentity repo = bench.repo();
        byte[][] bodies = {body(root, 0), body(root, 1), body(root, 8)};
        RequestHead[] heads = new RequestHead[3];
        for (int b = 0; b < 3; b++) {
            heads[b] = PolicyTestKit.post("/v1.47/containers/create", bodies[b]);
        }
        long[][] pinNs = new long[3][rounds];
        long[][] releaseNs = new long[3][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int b = 0; b < 3; b++) {
                long t0 = System.nanoTime();
                GatePolicy.Pinned p = policy.pin(heads[b], bodies[b], repo);
                long t1 = System.nanoTime();
                if (p.refusal() != null) {
                    throw new IllegalStateException(p.refusal().message());
                }
                if (p.token() != null) {
                    policy.settlePins(repo, p.token(), false);
                }
                pinNs[b][r] = t1 - t0;
                releaseNs[b][r] = System.nanoTime() - t1;
                if (r % 50 == 0) {
                    pins.flush(); // keep the unmount backlog from growing without bound
                }
            }
        }
        int warm = rounds / 10;
        String[] names = {"0 binds", "1 bind", "8 binds"};
        System.out.printf("pin-cost: %d rounds (first %d warm-up), %d cores, load %s%n", rounds, warm,
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).strip());
        for (int b = 0; b < 3; b++) {
            long[] pin = Arrays.copyOfRange(pinNs[b], warm, rounds);
            long[] rel = Arrays.copyOfRange(releaseNs[b], warm, rounds);
            Arrays.sort(pin);
            Arrays.sort(rel);
            System.out.printf("%-8s pin p50 %7.1f µs p99 %7.1f µs | release (scheduled) p50 %7.1f µs p99 %7.1f µs%n", names[b],
                    pin[pin.length / 2] / 1e3, pin[pin.length * 99 / 100] / 1e3, rel[rel.length / 2] / 1e3, rel[rel.length * 99 / 100] / 1e3);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < cycles; i++) {
            GatePolicy.Pinned p = policy.pin(heads[1], bodies[1], repo);
            policy.settlePins(repo, p.token(), i % 2 == 0); // half committed first, as after a 201
            if (i % 2 == 0) {
                pins.sweep(guid, java.util.Set.of(), java.util.Set.of(), System.currentTimeMillis()); // its container is gone
            }
        }
        pins.flush(); // the unmounts and record writes the releases scheduled
        double seconds = (System.nanoTime() - t0) / 1e9;
        List<Path> left = BindPinner.mountsUnder(pinRoot);
        long entries;
        try (var s = Files.list(pinRoot.resolve(guid))) {
            entries = s.count();
        }
        System.out.printf("leak: %d pin/release cycles in %.1f s: %d mounts, %d pin entries, %d records left%n", cycles, seconds,
                left.size(), entries, pins.pins(repo).size());
        BindPinner.unmountAll(pinRoot);
        if (!left.isEmpty() || entries != 0 || !pins.pins(repo).isEmpty()) {
            System.exit(1);
        }
    }

    private static byte[] body(Path root, int binds) {
        StringBuilder b = new StringBuilder("{\"Image\":\"busybox\",\"Cmd\":[\"true\"],\"HostConfig\":{\"Binds\":[\"data:/data\"");
        for (int i = 0; i < binds; i++) {
            b.append(",\"").append(root).append("/work/d").append(i).append(":/d").append(i).append("\"");
        }
        return PolicyTestKit.utf8(b.append("]}}").toString());
    }
}
