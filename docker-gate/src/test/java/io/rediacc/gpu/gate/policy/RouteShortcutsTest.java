package io.rediacc.gpu.gate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shortcuts on every request's route (issue 34) answer exactly what they replace: the route table's
 * index (exact routes in a set, the others by method and first segment) what trying every route answers,
 * for every route of the table filled in many ways and for near misses of each (case, trailing slash, a
 * segment more or less, another method); the hand-read version prefix what moby's pattern reads; the
 * memo of the last classification what classifying again gives.
 */
class RouteShortcutsTest {

    private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "get", "");
    private static final List<String> FILLINGS = List.of("x", "abc", "a/b", "", "_ping", "containers", "{x}", "a%2Fb", "json");

    @Test
    void theIndexAnswersAsEveryRouteTriedInTurn() {
        Set<String> paths = new LinkedHashSet<>(List.of("", "/", "*", "//", "/_ping/", "/_PING", "/containers", "/containers/",
                "containers/create", "/v1.47/containers/create", "/x/containers/create"));
        for (String route : DockerRouteTable.routes()) {
            String template = route.split(" ", 2)[1];
            for (String filling : FILLINGS) {
                String path = template.replaceAll("\\{[^}]*\\}", java.util.regex.Matcher.quoteReplacement(filling));
                paths.add(path);
                paths.add(path + "/");
                paths.add(path.toUpperCase(java.util.Locale.ROOT));
                paths.add(path.substring(0, path.length() - 1));
                paths.add("/" + filling + path);
                paths.add(path + "/" + filling);
            }
        }
        int known = 0;
        for (String method : METHODS) {
            for (String path : paths) {
                boolean expected = DockerRouteTable.knownByEveryRoute(method, path);
                assertThat(DockerRouteTable.known(method, path)).as(method + " " + path).isEqualTo(expected);
                known += expected ? 1 : 0;
            }
        }
        assertThat(known).as("paths the table knows among those tried").isGreaterThan(DockerRouteTable.routes().size());
    }

    /** moby's versionMatcher as the gate matched it before it was read by hand. */
    private static final java.util.regex.Pattern VERSION_PREFIX = java.util.regex.Pattern.compile("^/v[0-9.]+(?=/)");

    @Test
    void theVersionPrefixIsReadAsMobysPatternReadsIt() {
        List<String> paths = List.of("", "/", "/v", "/v/", "/v1", "/v1/", "/v1.47/_ping", "/v1.47", "/v1..4./x", "/v./x", "/V1.4/x",
                "/v1.4x/y", "/v١/x", "/v1.47/v1.47/_ping", "v1.47/x", "/vv1/x", "//v1/x", "/v1.47//", "/v0/");
        for (String path : paths) {
            java.util.regex.Matcher m = VERSION_PREFIX.matcher(path);
            String version = m.find() ? m.group().substring(2) : null;
            assertThat(DockerRoute.apiVersion(path)).as(path).isEqualTo(version);
            assertThat(DockerRoute.routingPath(path)).as(path).isEqualTo(VERSION_PREFIX.matcher(path).replaceFirst(""));
        }
    }

    @Test
    void aRepeatedClassificationIsTheSameAsAFreshOne() {
        DockerRoute first = DockerRoute.classify("POST", "/v1.47/containers/abc/start");
        assertThat(DockerRoute.classify("POST", "/v1.47/containers/abc/start")).isEqualTo(first);
        assertThat(DockerRoute.classify("GET", "/v1.47/containers/abc/start").kind()).isEqualTo(DockerRoute.Kind.OTHER);
        assertThat(DockerRoute.classify("POST", "/v1.47/containers/abd/start").target()).isEqualTo("abd");
        assertThat(DockerRoute.classify("POST", "/v1.47/containers/create").kind()).isEqualTo(DockerRoute.Kind.CONTAINER_CREATE);
        assertThat(DockerRoute.classify(null, "/_ping").kind()).isEqualTo(DockerRoute.Kind.OTHER);
    }

    @Test
    void versionsCompareAsTheirSplitPartsCompared() {
        List<String> versions = List.of("", ".", "..", "1", "1.", "1.0", "1.0.0", "1.47", "1.56", "1.9", "1.10", "1.100", "2", "0.9",
                "1.a", "a.1", "1.-1", "1.+2", "1.1234567890", "1.123456789", "01.047", "1..47", "١.4", " 1.47", "1.47 ", "999999999.1");
        for (String a : versions) {
            for (String b : versions) {
                assertThat(Integer.signum(ApiVersions.compare(a, b))).as(a + " vs " + b).isEqualTo(Integer.signum(splitCompare(a, b)));
            }
        }
    }

    /** moby's versions.compare as the gate read it before: split at '.', a part not a number of at most 9 digits is 0. */
    private static int splitCompare(String a, String b) {
        int[] x = split(a);
        int[] y = split(b);
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int p = i < x.length ? x[i] : 0;
            int q = i < y.length ? y[i] : 0;
            if (p != q) {
                return Integer.compare(p, q);
            }
        }
        return 0;
    }

    private static int[] split(String version) {
        String[] parts = version.split("\\.", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            boolean number = !parts[i].isEmpty() && parts[i].length() <= 9 && parts[i].chars().allMatch(c -> c >= '0' && c <= '9');
            out[i] = number ? Integer.parseInt(parts[i]) : 0;
        }
        return out;
    }
}
