import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Grant → enforced: alternately grants and revokes DEVICE for REPO through grant-service and, from
 * the moment the API call starts, probes the gate with a container create naming DEVICE until the
 * gate's answer flips (admitted after a grant, refused after a revoke). The figure is call start →
 * first flipped answer, one create after another (PROBE_EVERY_US: one create per that many microseconds instead;
 * at 1000 the figure and its stages came out the same on 2026-12-07, so the probe's own CPU is not what slows the
 * path it measures). The API call uses ?wait=5s (enforced-ack), so its own answer time is
 * reported too.
 *
 * <pre>GrantEnforced GRANT_URL GATE_URL MACHINE REPO DEVICE OPS [BOOTSTRAP STAGES_FILE]</pre>
 * prints flip_p50_ms flip_p99_ms api_p50_ms api_p99_ms ops (a grant and a revoke are one op each).
 * <p>
 * With BOOTSTRAP and STAGES_FILE (bench/grant-propagation.sh's STAGES=1), a bystander consumer reads the
 * grants topic as a gate does (read_committed) and each measured op's timeline goes to STAGES_FILE, one line
 * per op, wall-clock microseconds: {@code op grant t0 ce_time produced seen flip api bytes} — t0 the call's
 * start, ce_time the time grant-service stamped on the change (its handler took it, before the transaction),
 * produced the snapshot record's Kafka timestamp (CreateTime: the relay's send, millisecond resolution),
 * seen when the bystander had it, flip when the probe first saw the gate's answer flip, api when the call
 * answered; bytes the record's value size. lib/prop-stages.py turns the files into per-stage percentiles.
 */
public class GrantEnforced {

    public static void main(String[] args) throws Exception {
        String grantUrl = args[0];
        String gateUrl = args[1];
        String machine = args[2];
        String repo = args[3];
        String device = args[4];
        int ops = Integer.parseInt(args[5]);
        Bystander bystander = args.length > 7 ? new Bystander(args[6], machine) : null;
        String body = "{\"Image\":\"busybox\",\"Cmd\":[\"true\"],\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\""
                + device + "\"]}]}}";
        HttpRequest probe = HttpRequest.newBuilder(URI.create(gateUrl + "/v1.47/containers/create"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        boolean granted = admitted(probe);
        // start from a known state: not granted
        if (granted) {
            call(grantUrl, machine, repo, device, false).join();
        }
        for (int i = 0; i < 20 && admitted(probe); i++) {
            Thread.sleep(100);
        }
        long[] flip = new long[ops];
        long[] api = new long[ops];
        long[] t0 = new long[ops]; // wall-clock micros of each measured call's start
        // warm-up: a few cycles not counted
        for (int i = 0; i < 10; i++) {
            cycle(grantUrl, machine, repo, device, i % 2 == 0, probe);
        }
        for (int i = 0; i < ops; i++) {
            t0[i] = micros(Instant.now());
            long[] r = cycle(grantUrl, machine, repo, device, i % 2 == 0, probe);
            flip[i] = r[0];
            api[i] = r[1];
        }
        // leave it revoked
        if (ops % 2 == 1) {
            cycle(grantUrl, machine, repo, device, false, probe);
        }
        if (bystander != null) {
            bystander.writeStages(args[7], t0, flip, api);
        }
        double[] f = Bench.sortedMillis(flip, ops);
        double[] a = Bench.sortedMillis(api, ops);
        System.out.println("flip_p50_ms " + Bench.fmt(Bench.percentile(f, 50)));
        System.out.println("flip_p99_ms " + Bench.fmt(Bench.percentile(f, 99)));
        System.out.println("api_p50_ms " + Bench.fmt(Bench.percentile(a, 50)));
        System.out.println("api_p99_ms " + Bench.fmt(Bench.percentile(a, 99)));
        System.out.println("ops " + ops);
    }

    /** One grant (or revoke): returns {call start → first flipped gate answer, call start → API answer} in ns. */
    static long[] cycle(String grantUrl, String machine, String repo, String device, boolean grant, HttpRequest probe)
            throws Exception {
        long t0 = System.nanoTime();
        CompletableFuture<HttpResponse<String>> call = call(grantUrl, machine, repo, device, grant);
        long flipped = -1;
        while (flipped < 0) {
            long sent = System.nanoTime();
            boolean ok = admitted(probe);
            if (ok == grant) {
                flipped = System.nanoTime() - t0;
            } else if (System.nanoTime() - t0 > 30_000_000_000L) {
                throw new IllegalStateException("the gate did not follow a " + (grant ? "grant" : "revoke") + " within 30 s");
            } else {
                pace(sent);
            }
        }
        HttpResponse<String> r = call.join();
        long apiNanos = System.nanoTime() - t0; // upper bound when the API answered before the flip was seen
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("grant-service answered " + r.statusCode() + ": " + r.body());
        }
        return new long[]{flipped, apiNanos};
    }

    /**
     * The probe's pace: the next create leaves PROBE_EVERY_NANOS after the previous one left (at once when that one
     * took longer; 0: no wait). Flat out, the probe loop (this JVM, the gate and the bench daemon) is busy the whole
     * time; paced at 1 ms, a flip is seen at most ~1 ms late (counted against us) and the loop costs a fraction of a
     * core. Both measured the same on 2026-12-07 (docs/BENCHMARKS-LOG.md).
     */
    static void pace(long sent) {
        long next = sent + PROBE_EVERY_NANOS;
        for (long left = next - System.nanoTime(); left > 0; left = next - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    static final long PROBE_EVERY_NANOS = Long.parseLong(System.getenv().getOrDefault("PROBE_EVERY_US", "0")) * 1000;

    static CompletableFuture<HttpResponse<String>> call(String grantUrl, String machine, String repo, String device, boolean grant) {
        HttpRequest req;
        if (grant) {
            String body = "{\"machine\":\"" + machine + "\",\"device\":\"" + device + "\",\"exclusive\":false}";
            req = HttpRequest.newBuilder(URI.create(grantUrl + "/api/v1/repos/" + repo + "@" + machine + "/grants?wait=5s"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        } else {
            req = HttpRequest.newBuilder(URI.create(grantUrl + "/api/v1/repos/" + repo + "@" + machine + "/grants/"
                            + URLEncoder.encode(device, StandardCharsets.UTF_8) + "?wait=5s"))
                    .timeout(Duration.ofSeconds(30)).DELETE().build();
        }
        return Bench.HTTP.sendAsync(req, HttpResponse.BodyHandlers.ofString());
    }

    static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }

    /** One snapshot record of the machine as the bystander saw it (wall-clock micros; produced from CreateTime, ms). */
    record Seen(long version, long ceTime, long produced, long seen, int bytes) {
    }

    /** Reads the grants topic (read_committed, from its end) on a thread of its own, keeping the machine's records. */
    static final class Bystander implements Runnable {
        private static final Pattern VERSION = Pattern.compile("\"version\"\\s*:\\s*(\\d+)");
        final String machine;
        final KafkaConsumer<String, byte[]> consumer;
        final ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        final Thread thread;
        volatile boolean running = true;

        Bystander(String bootstrap, String machine) {
            this.machine = machine;
            Properties cp = Bench.readCommittedConsumer(bootstrap);
            consumer = new KafkaConsumer<>(cp);
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(io.rediacc.gpu.contracts.events.Topics.GRANTS).forEach(p -> parts.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            parts.forEach(consumer::position); // resolve the end now, before the first measured op
            thread = new Thread(this, "bystander");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            while (running) {
                var records = consumer.poll(Duration.ofMillis(100));
                long now = micros(Instant.now());
                for (ConsumerRecord<String, byte[]> r : records) {
                    if (!machine.equals(r.key()) || r.value() == null) {
                        continue;
                    }
                    Matcher m = VERSION.matcher(new String(r.value(), StandardCharsets.UTF_8));
                    Header ce = r.headers().lastHeader("ce_time");
                    long ceTime = ce == null ? -1 : micros(Instant.parse(new String(ce.value(), StandardCharsets.UTF_8)));
                    seen.add(new Seen(m.find() ? Long.parseLong(m.group(1)) : -1, ceTime, r.timestamp() * 1000L, now,
                            r.value().length));
                }
            }
        }

        /** Matches each op with the newest snapshot stamped inside its window [t0, next t0) and writes the timelines. */
        void writeStages(String file, long[] t0, long[] flipNanos, long[] apiNanos) throws Exception {
            Thread.sleep(300); // the last op's record was seen before its flip; let the poll loop hand it over
            running = false;
            thread.join(5000);
            consumer.close();
            List<Seen> all = new ArrayList<>(seen);
            StringBuilder out = new StringBuilder("# op grant t0 ce_time produced seen flip api bytes (wall-clock micros)\n");
            int unmatched = 0;
            for (int i = 0; i < t0.length; i++) {
                long from = t0[i];
                long to = i + 1 < t0.length ? t0[i + 1] : Long.MAX_VALUE;
                Seen best = null;
                for (Seen s : all) {
                    if (s.ceTime() >= from && s.ceTime() < to && (best == null || s.version() > best.version()
                            || (s.version() == best.version() && s.seen() < best.seen()))) {
                        best = s;
                    }
                }
                if (best == null) {
                    unmatched++;
                    continue;
                }
                out.append(i).append(' ').append(i % 2 == 0).append(' ').append(from).append(' ').append(best.ceTime())
                        .append(' ').append(best.produced()).append(' ').append(best.seen()).append(' ')
                        .append(from + flipNanos[i] / 1000).append(' ').append(from + apiNanos[i] / 1000).append(' ')
                        .append(best.bytes()).append('\n');
            }
            java.nio.file.Files.writeString(java.nio.file.Path.of(file), out);
            System.out.println("stages_unmatched " + unmatched);
        }
    }

    static boolean admitted(HttpRequest probe) throws Exception {
        HttpResponse<String> r = Bench.HTTP.send(probe, HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 201;
    }
}
