import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.UUID;

/** Small shared helpers of the drivers: percentiles, HTTP, repo identities. */
final class Bench {
    private Bench() {
    }

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** The repo GUID the simulator gives repo {@code repo} of {@code machine}: stable, so the gate's manifest can name it. */
    static String guid(String machine, String repo) {
        return UUID.nameUUIDFromBytes(("repo:" + machine + "/" + repo).getBytes()).toString();
    }

    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    static double[] sortedMillis(long[] nanos, int n) {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            ms[i] = nanos[i] / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    static HttpResponse<String> get(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A consumer of committed records only, committing nothing, with the value as bytes: how every bench reads a topic. */
    static Properties readCommittedConsumer(String bootstrap) {
        Properties cp = new Properties();
        cp.put("bootstrap.servers", bootstrap);
        cp.put("enable.auto.commit", "false");
        cp.put("isolation.level", "read_committed");
        cp.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        cp.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        return cp;
    }

    static String fmt(double v) {
        return String.format(java.util.Locale.ROOT, "%.3f", v);
    }
}
