import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load on grant-service's REST API.
 *
 * <pre>
 * GrantLoad throughput URL PATTERN CLIENTS SECONDS MACHINES_PER_CLIENT REPOS GPUS [OFFSET]
 *     CLIENTS threads; client c grants on its own machines String.format(PATTERN, OFFSET + c * MACHINES_PER_CLIENT + k),
 *     every (repo, gpu) pair once, ?wait=0 (the transaction, not the gates' ack). Prints grants_per_s, p50_ms,
 *     p99_ms, the answers' statuses, and driver_cpu_ms_per_grant (this JVM's CPU over the window per answer).
 * GrantLoad exclusive URL MACHINE REPOS DEVICE
 *     REPOS threads, released at once, each asking an exclusive grant of DEVICE for its own repo.
 *     Prints winners, the answers' statuses, losers_p50_ms, losers_p99_ms.
 * GrantLoad ready URL MACHINE REPO   waits until grant-service knows MACHINE and REPO (inventory consumed)
 * </pre>
 */
public class GrantLoad {

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "throughput" -> throughput(args);
            case "exclusive" -> exclusive(args);
            case "ready" -> ready(args[1], args[2], args[3]);
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    static HttpResponse<String> grant(String url, String repo, String machine, String device, boolean exclusive, String wait)
            throws Exception {
        String body = "{\"machine\":\"" + machine + "\",\"device\":\"" + device + "\",\"exclusive\":" + exclusive + "}";
        HttpRequest req = HttpRequest.newBuilder(URI.create(url + "/api/v1/repos/" + repo + "/grants?wait=" + wait))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return Bench.HTTP.send(req, HttpResponse.BodyHandlers.ofString());
    }

    static void ready(String url, String machine, String repo) throws Exception {
        long deadline = System.nanoTime() + 180_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = Bench.get(url + "/api/v1/repos/" + repo + "@" + machine + "/grants");
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (Exception e) {
                // not up yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("grant-service never learned " + repo + "@" + machine);
    }

    static void throughput(String[] args) throws Exception {
        String url = args[1];
        String pattern = args[2];
        int clients = Integer.parseInt(args[3]);
        double seconds = Double.parseDouble(args[4]);
        int perClient = Integer.parseInt(args[5]);
        int repos = Integer.parseInt(args[6]);
        int gpus = Integer.parseInt(args[7]);
        int offset = args.length > 8 ? Integer.parseInt(args[8]) : 0;
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Map<Integer, AtomicLong> statuses = new java.util.concurrent.ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        long[] endAt = new long[1];
        List<Thread> threads = new ArrayList<>();
        List<long[]> latencies = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            final int client = c;
            long[] lat = new long[perClient * repos * gpus + 1];
            latencies.add(lat);
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    int n = 0;
                    outer:
                    for (int k = 0; k < perClient; k++) {
                        String machine = String.format(pattern, offset + client * perClient + k);
                        for (int r = 0; r < repos; r++) {
                            for (int g = 0; g < gpus; g++) {
                                if (System.nanoTime() >= endAt[0]) {
                                    break outer;
                                }
                                long t0 = System.nanoTime();
                                HttpResponse<String> resp = grant(url, "repo-" + r + "@" + machine, machine,
                                        "nvidia.com/gpu=" + g, false, "0");
                                long t1 = System.nanoTime();
                                statuses.computeIfAbsent(resp.statusCode(), s -> new AtomicLong()).incrementAndGet();
                                if (resp.statusCode() == 201 || resp.statusCode() == 202) {
                                    lat[n++] = t1 - t0;
                                    lat[lat.length - 1] = n;
                                    if (t1 <= endAt[0]) {
                                        ok.incrementAndGet();
                                    }
                                } else {
                                    failed.incrementAndGet();
                                    if (failed.get() < 5) {
                                        System.err.println(resp.statusCode() + " " + resp.body());
                                    }
                                }
                            }
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    failed.incrementAndGet();
                }
            });
            t.start();
            threads.add(t);
        }
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        endAt[0] = t0 + (long) (seconds * 1e9);
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        long driverCpu = os.getProcessCpuTime() - cpu0;
        double elapsed = Math.min((System.nanoTime() - t0) / 1e9, seconds);
        int total = 0;
        for (long[] l : latencies) {
            total += (int) l[l.length - 1];
        }
        long[] all = new long[total];
        int i = 0;
        for (long[] l : latencies) {
            int n = (int) l[l.length - 1];
            System.arraycopy(l, 0, all, i, n);
            i += n;
        }
        double[] ms = Bench.sortedMillis(all, total);
        System.out.println("grants_per_s " + Bench.fmt(ok.get() / elapsed));
        System.out.println("p50_ms " + Bench.fmt(Bench.percentile(ms, 50)));
        System.out.println("p99_ms " + Bench.fmt(Bench.percentile(ms, 99)));
        System.out.println("statuses " + new TreeMap<>(statuses));
        System.out.println("failed " + failed.get());
        // what the load itself cost (this JVM's CPU over the window), per answered grant: a share of the 2 cores
        long answered = statuses.values().stream().mapToLong(AtomicLong::get).sum();
        System.out.println("driver_cpu_ms_per_grant " + Bench.fmt(answered == 0 ? 0 : driverCpu / 1e6 / answered));
    }

    static void exclusive(String[] args) throws Exception {
        String url = args[1];
        String machine = args[2];
        int repos = Integer.parseInt(args[3]);
        String device = args[4];
        CountDownLatch ready = new CountDownLatch(repos);
        CountDownLatch go = new CountDownLatch(1);
        int[] status = new int[repos];
        long[] lat = new long[repos];
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < repos; r++) {
            final int repo = r;
            Thread t = new Thread(() -> {
                try {
                    ready.countDown();
                    go.await();
                    long t0 = System.nanoTime();
                    HttpResponse<String> resp = grant(url, "repo-" + repo + "@" + machine, machine, device, true, "0");
                    lat[repo] = System.nanoTime() - t0;
                    status[repo] = resp.statusCode();
                } catch (Exception e) {
                    status[repo] = -1;
                    e.printStackTrace();
                }
            });
            t.start();
            threads.add(t);
        }
        ready.await();
        Thread.sleep(50);
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        int winners = 0;
        Map<Integer, Integer> hist = new TreeMap<>();
        long[] losers = new long[repos];
        int nl = 0;
        for (int r = 0; r < repos; r++) {
            hist.merge(status[r], 1, Integer::sum);
            if (status[r] == 201 || status[r] == 202) {
                winners++;
            } else {
                losers[nl++] = lat[r];
            }
        }
        double[] ms = Bench.sortedMillis(losers, nl);
        System.out.println("winners " + winners);
        System.out.println("statuses " + hist);
        System.out.println("losers_p50_ms " + Bench.fmt(Bench.percentile(ms, 50)));
        System.out.println("losers_p99_ms " + Bench.fmt(Bench.percentile(ms, 99)));
    }
}
