import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Grant → enforced: alternately grants and revokes DEVICE for REPO through grant-service and, from
 * the moment the API call starts, probes the gate with a container create naming DEVICE until the
 * gate's answer flips (admitted after a grant, refused after a revoke). The figure is call start →
 * first flipped answer. The API call uses ?wait=5s (enforced-ack), so its own answer time is
 * reported too.
 *
 * <pre>GrantEnforced GRANT_URL GATE_URL MACHINE REPO DEVICE OPS</pre>
 * prints flip_p50_ms flip_p99_ms api_p50_ms api_p99_ms ops (a grant and a revoke are one op each).
 */
public class GrantEnforced {

    public static void main(String[] args) throws Exception {
        String grantUrl = args[0];
        String gateUrl = args[1];
        String machine = args[2];
        String repo = args[3];
        String device = args[4];
        int ops = Integer.parseInt(args[5]);
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
        // warm-up: a few cycles not counted
        for (int i = 0; i < 10; i++) {
            cycle(grantUrl, machine, repo, device, i % 2 == 0, probe);
        }
        for (int i = 0; i < ops; i++) {
            long[] r = cycle(grantUrl, machine, repo, device, i % 2 == 0, probe);
            flip[i] = r[0];
            api[i] = r[1];
        }
        // leave it revoked
        if (ops % 2 == 1) {
            cycle(grantUrl, machine, repo, device, false, probe);
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
            boolean ok = admitted(probe);
            if (ok == grant) {
                flipped = System.nanoTime() - t0;
            } else if (System.nanoTime() - t0 > 30_000_000_000L) {
                throw new IllegalStateException("the gate did not follow a " + (grant ? "grant" : "revoke") + " within 30 s");
            }
        }
        HttpResponse<String> r = call.join();
        long apiNanos = System.nanoTime() - t0; // upper bound when the API answered before the flip was seen
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("grant-service answered " + r.statusCode() + ": " + r.body());
        }
        return new long[]{flipped, apiNanos};
    }

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

    static boolean admitted(HttpRequest probe) throws Exception {
        HttpResponse<String> r = Bench.HTTP.send(probe, HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 201;
    }
}
