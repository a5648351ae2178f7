package io.rediacc.gpu.gate.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every route the Docker daemon serves, taken from moby's router ({@code daemon/server/router/*}
 * at the commit named below, API up to {@value #MAX_API_VERSION}): a request the table does not
 * know is refused (404 {@value RefusalMessages#RULE_UNKNOWN_ROUTE}) instead of passed, and so is an
 * API version prefix above the table's (400 {@value RefusalMessages#RULE_API_VERSION}). Matching is
 * gorilla/mux's: on the routing path of {@link DockerRoute} (decoded, its one version prefix
 * removed), method and path compared exactly (case and trailing slash count), each pattern anchored
 * at both ends. {@code {name:.*}} may hold slashes and be empty, {@code {name:.+}} is non-empty,
 * {@code {name}} is one segment ({@code [^/]+}, mux's default).
 */
public final class DockerRouteTable {

    /**
     * moby/moby b985e2313a8676e18072b442911fc8f64f17d440 (client.MaxAPIVersion): the newest API
     * version the gate judges requests of, and so the newest it tells clients a daemon serves.
     */
    public static final String MAX_API_VERSION = "1.56";

    private static final List<String> ROUTES = List.of(
            "DELETE /configs/{id}",
            "DELETE /containers/{name:.*}",
            "DELETE /containers/{name}/checkpoints/{checkpoint}",
            "DELETE /images/{name:.*}",
            "DELETE /networks/{id:.*}",
            "DELETE /nodes/{id}",
            "DELETE /plugins/{name:.*}",
            "DELETE /secrets/{id}",
            "DELETE /services/{id}",
            "DELETE /volumes/{name:.*}",
            "GET /_ping",
            "GET /configs",
            "GET /configs/{id}",
            "GET /containers/json",
            "GET /containers/{name:.*}/archive",
            "GET /containers/{name:.*}/attach/ws",
            "GET /containers/{name:.*}/changes",
            "GET /containers/{name:.*}/checkpoints",
            "GET /containers/{name:.*}/export",
            "GET /containers/{name:.*}/json",
            "GET /containers/{name:.*}/logs",
            "GET /containers/{name:.*}/stats",
            "GET /containers/{name:.*}/top",
            "GET /debug/pprof/",
            "GET /debug/pprof/cmdline",
            "GET /debug/pprof/profile",
            "GET /debug/pprof/symbol",
            "GET /debug/pprof/trace",
            "GET /debug/pprof/{name}",
            "GET /debug/vars",
            "GET /distribution/{name:.*}/json",
            "GET /events",
            "GET /exec/{id:.*}/json",
            "GET /images/get",
            "GET /images/json",
            "GET /images/search",
            "GET /images/{name:.*}/attestations",
            "GET /images/{name:.*}/get",
            "GET /images/{name:.*}/history",
            "GET /images/{name:.*}/json",
            "GET /info",
            "GET /networks",
            "GET /networks/",
            "GET /networks/{id:.+}",
            "GET /nodes",
            "GET /nodes/{id}",
            "GET /plugins",
            "GET /plugins/privileges",
            "GET /plugins/{name:.*}/json",
            "GET /secrets",
            "GET /secrets/{id}",
            "GET /services",
            "GET /services/{id}",
            "GET /services/{id}/logs",
            "GET /swarm",
            "GET /swarm/unlockkey",
            "GET /system/df",
            "GET /tasks",
            "GET /tasks/{id}",
            "GET /tasks/{id}/logs",
            "GET /version",
            "GET /volumes",
            "GET /volumes/{name:.*}",
            "HEAD /_ping",
            "HEAD /containers/{name:.*}/archive",
            "OPTIONS /{anyroute:.*}",
            "POST /auth",
            "POST /build",
            "POST /build/cancel",
            "POST /build/prune",
            "POST /commit",
            "POST /configs/create",
            "POST /configs/{id}/update",
            "POST /containers/create",
            "POST /containers/prune",
            "POST /containers/{name:.*}/attach",
            "POST /containers/{name:.*}/checkpoints",
            "POST /containers/{name:.*}/exec",
            "POST /containers/{name:.*}/kill",
            "POST /containers/{name:.*}/pause",
            "POST /containers/{name:.*}/rename",
            "POST /containers/{name:.*}/resize",
            "POST /containers/{name:.*}/restart",
            "POST /containers/{name:.*}/start",
            "POST /containers/{name:.*}/stop",
            "POST /containers/{name:.*}/unpause",
            "POST /containers/{name:.*}/update",
            "POST /containers/{name:.*}/wait",
            "POST /exec/{name:.*}/resize",
            "POST /exec/{name:.*}/start",
            "POST /grpc",
            "POST /images/create",
            "POST /images/load",
            "POST /images/prune",
            "POST /images/{name:.*}/push",
            "POST /images/{name:.*}/tag",
            "POST /networks/create",
            "POST /networks/prune",
            "POST /networks/{id:.*}/connect",
            "POST /networks/{id:.*}/disconnect",
            "POST /nodes/{id}/update",
            "POST /plugins/create",
            "POST /plugins/pull",
            "POST /plugins/{name:.*}/disable",
            "POST /plugins/{name:.*}/enable",
            "POST /plugins/{name:.*}/push",
            "POST /plugins/{name:.*}/set",
            "POST /plugins/{name:.*}/upgrade",
            "POST /secrets/create",
            "POST /secrets/{id}/update",
            "POST /services/create",
            "POST /services/{id}/update",
            "POST /session",
            "POST /swarm/init",
            "POST /swarm/join",
            "POST /swarm/leave",
            "POST /swarm/unlock",
            "POST /swarm/update",
            "POST /volumes/create",
            "POST /volumes/prune",
            "PUT /containers/{name:.*}/archive",
            "PUT /volumes/{name:.*}");

    private record Route(String method, Pattern path) {
    }

    private static final List<Route> COMPILED = compile();

    private DockerRouteTable() {
    }

    private static List<Route> compile() {
        List<Route> out = new ArrayList<>();
        for (String route : ROUTES) {
            String[] parts = route.split(" ", 2);
            StringBuilder regex = new StringBuilder();
            String p = parts[1];
            int i = 0;
            while (i < p.length()) {
                int open = p.indexOf('{', i);
                if (open < 0) {
                    regex.append(Pattern.quote(p.substring(i)));
                    break;
                }
                regex.append(Pattern.quote(p.substring(i, open)));
                int close = p.indexOf('}', open);
                String var = p.substring(open + 1, close);
                int colon = var.indexOf(':');
                regex.append(colon < 0 ? "[^/]+" : "(?:" + var.substring(colon + 1) + ")");
                i = close + 1;
            }
            String r = regex.toString();
            out.add(new Route(parts[0], Pattern.compile(r, Pattern.DOTALL)));
        }
        return List.copyOf(out);
    }

    /** Whether the daemon has a route for exactly this method and routing path. */
    static boolean known(String method, String routingPath) {
        if (EXACT.contains(method + " " + routingPath)) {
            return true;
        }
        Map<String, List<Route>> bySegment = BY_SEGMENT.get(method);
        return bySegment != null && (matchesAny(bySegment.get(firstSegment(routingPath)), routingPath)
                || matchesAny(bySegment.get(ANY_SEGMENT), routingPath));
    }

    /**
     * Every route matched against every request was a regex match per route of the method on every
     * request, {@code /_ping} included (issue 34). A route without a variable matches exactly its own
     * text ({@link #EXACT}: one set lookup); one with a variable can match only a path whose first
     * segment is the route's, when that segment is literal ({@link #BY_SEGMENT}), or any path, when it
     * holds a variable ({@link #ANY_SEGMENT}). Only a narrowing: the patterns still decide.
     */
    private static final Set<String> EXACT = exact();
    private static final Map<String, Map<String, List<Route>>> BY_SEGMENT = bySegment();
    /** The key of the routes whose first segment holds a variable ({@code OPTIONS /{anyroute:.*}}). */
    private static final String ANY_SEGMENT = "{";

    private static Set<String> exact() {
        Set<String> out = new HashSet<>();
        for (String route : ROUTES) {
            if (route.indexOf('{') < 0) {
                out.add(route);
            }
        }
        return Set.copyOf(out);
    }

    private static Map<String, Map<String, List<Route>>> bySegment() {
        Map<String, Map<String, List<Route>>> out = new HashMap<>();
        for (int i = 0; i < ROUTES.size(); i++) {
            String path = ROUTES.get(i).split(" ", 2)[1];
            if (path.indexOf('{') < 0) {
                continue;
            }
            String segment = firstSegment(path);
            out.computeIfAbsent(COMPILED.get(i).method(), m -> new HashMap<>())
                    .computeIfAbsent(segment.indexOf('{') >= 0 ? ANY_SEGMENT : segment, k -> new ArrayList<>()).add(COMPILED.get(i));
        }
        return out;
    }

    /**
     * The text between a leading '/' and the next '/' (or the end). Every route starts with '/', so a
     * literal first segment S matches only paths equal to "/S" or starting with "/S/": paths whose first
     * segment is S exactly.
     */
    private static String firstSegment(String path) {
        int start = path.startsWith("/") ? 1 : 0;
        int end = path.indexOf('/', start);
        return end < 0 ? path.substring(start) : path.substring(start, end);
    }

    /** Every route of the table tried in turn: what {@link #known} must answer (its test compares the two). */
    static boolean knownByEveryRoute(String method, String routingPath) {
        return matchesAny(COMPILED.stream().filter(r -> r.method().equals(method)).toList(), routingPath);
    }

    /** The route texts ({@code "GET /_ping"}), for tests. */
    static List<String> routes() {
        return ROUTES;
    }

    private static boolean matchesAny(List<Route> routes, String routingPath) {
        if (routes == null) {
            return false;
        }
        for (Route route : routes) {
            if (route.path().matcher(routingPath).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code version} ({@code 1.50}) is above {@link #MAX_API_VERSION}, compared as the daemon compares. */
    static boolean above(String version) {
        return ApiVersions.compare(version, MAX_API_VERSION) > 0;
    }

    /** {@code version}, or {@link #MAX_API_VERSION} where it is above that. */
    static String capped(String version) {
        return above(version) ? MAX_API_VERSION : version;
    }
}
