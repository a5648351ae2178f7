package io.rediacc.gpu.gate.policy;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Not a test (surefire runs *Test and *Properties only): a before/after driver for the policy's
 * cost per create body, run by hand on a quiet machine. ns/op of {@link GoJsonReader#read} alone
 * and of the whole {@link GatePolicy#onBody} for the body in the file given as the first argument
 * ({@code python3 bench/lib/create-body.py nvidia.com/gpu=0 4096 /srv > /tmp/create.json}: its binds under /srv,
 * one of the test manifest's hostPaths). Optional: rounds (5) and operations per round (100,000).
 *
 * <pre>mvn -o -q -f docker-gate/pom.xml test-compile
 * java -cp docker-gate/target/classes:docker-gate/target/test-classes:$HOME/.m2/repository/io/rediacc/gpu/contracts/0.1.0-SNAPSHOT/contracts-0.1.0-SNAPSHOT.jar \
 *     io.rediacc.gpu.gate.policy.GoJsonReaderBench /tmp/create.json 4 5000</pre>
 */
public final class GoJsonReaderBench {

    private GoJsonReaderBench() {
    }

    public static void main(String[] args) throws Exception {
        byte[] body = Files.readAllBytes(Path.of(args[0]));
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
        GrantLookup grants = PolicyTestKit.grants("nvidia.com/gpu=0");
        RequestHead head = PolicyTestKit.post("/v1.47/containers/create", body);
        Verdict first = PolicyTestKit.POLICY.onBody(head, body, PolicyTestKit.REPO, grants);
        // bench/lib/create-body.py names a volume: admitted pending the daemon's answer about it
        if (!(first instanceof Verdict.Allow) && !(first instanceof Verdict.InspectVolumes)) {
            throw new IllegalStateException("the body is not admitted: " + first);
        }
        // Thread CPU time and allocated bytes, not wall time: on a shared box they move far less with load.
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        long sink = 0;
        for (int round = 0; round < rounds; round++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long a0 = threads.getThreadAllocatedBytes(self);
            for (int i = 0; i < n; i++) {
                sink += GoJsonReader.read(body, GoJsonReader.Duplicates.REFUSE_FOLDED).hashCode();
            }
            long c1 = threads.getCurrentThreadCpuTime();
            long a1 = threads.getThreadAllocatedBytes(self);
            for (int i = 0; i < n; i++) {
                sink += PolicyTestKit.POLICY.onBody(head, body, PolicyTestKit.REPO, grants).hashCode();
            }
            long c2 = threads.getCurrentThreadCpuTime();
            long a2 = threads.getThreadAllocatedBytes(self);
            System.out.printf("round %d: read %,d cpu-ns/op %,d B/op; onBody %,d cpu-ns/op %,d B/op (%d-byte body)%n",
                    round, (c1 - c0) / n, (a1 - a0) / n, (c2 - c1) / n, (a2 - a1) / n, body.length);
        }
        System.out.println(sink == 42 ? "" : "done");
    }
}
