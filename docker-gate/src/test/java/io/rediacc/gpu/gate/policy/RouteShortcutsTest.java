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
}
