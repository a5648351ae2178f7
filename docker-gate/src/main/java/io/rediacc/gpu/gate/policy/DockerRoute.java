package io.rediacc.gpu.gate.policy;

/**
 * Which Docker API endpoint a request reaches, decided exactly as the daemon's router (gorilla/mux
 * in moby's {@code daemon/server/server.go}) decides it: on the percent-decoded path, with at most
 * one {@code /v<digits and dots>} version prefix removed (none is fine; a lower-case {@code v}
 * only), absolute-form targets and query strings accepted. Matching is case-sensitive for method
 * and path, and a trailing slash counts, because the daemon's are: {@code /CONTAINERS/create},
 * {@code get}, {@code /containers/json/} and {@code /v1.51/v1.51/...} reach no route there (404),
 * so they reach none here either. A path that is not clean ({@code //}, {@code .}, {@code ..}) the
 * daemon answers with a redirect and routes nowhere ({@link #clean}). {@code {name}} segments may
 * contain slashes, as the daemon's {@code {name:.*}} patterns allow.
 */
record DockerRoute(Kind kind, String path, String target, RequestTarget requestTarget) {

    /** Endpoints the policy treats specially; everything else is {@link #OTHER}. */
    enum Kind {
        CONTAINER_CREATE("container-create", true),
        CONTAINER_UPDATE("container-update", true),
        EXEC_CREATE("exec-create", true),
        CONTAINER_START("container-start", false),
        CONTAINER_RESTART("container-restart", false),
        /** {@code GET}/{@code HEAD /containers/{id}/archive}: docker cp out (the daemon mounts the container's sources). */
        CONTAINER_ARCHIVE_READ("container-archive-read", false),
        /** {@code PUT /containers/{id}/archive}: docker cp in, a tar stream. */
        CONTAINER_ARCHIVE_PUT("container-archive-put", false),
        /** {@code GET /containers/{id}/export}. */
        CONTAINER_EXPORT("container-export", false),
        /** {@code POST /commit?container={id}}. */
        COMMIT("commit", false),
        VOLUME_CREATE("volume-create", true),
        SERVICE_CREATE("service-create", true),
        SERVICE_UPDATE("service-update", true),
        PLUGIN_MANAGEMENT("plugin-management", false),
        BUILD("build", false),
        SESSION("session", false),
        GRPC("grpc", false),
        SWARM_INIT("swarm-init", false),
        SWARM_JOIN("swarm-join", false),
        OTHER("other", false);

        private final String routeName;
        private final boolean bodyInspected;

        Kind(String routeName, boolean bodyInspected) {
            this.routeName = routeName;
            this.bodyInspected = bodyInspected;
        }

        /** The name handed to the data plane in {@link HeadVerdict.InspectBody}. */
        String routeName() {
            return routeName;
        }

        boolean bodyInspected() {
            return bodyInspected;
        }
    }

    /**
     * The last request classified on this thread: the data plane and the policy ask for the route of one
     * request several times (the version step, the head, the body, the pin step, the version cap of the
     * answer) and it was parsed again each time (issue 34). Classifying is a pure function of the method and
     * the target, so the memo answers exactly what parsing again would; a target that is refused (throws)
     * is never kept.
     */
    private record Last(String method, String uri, DockerRoute route) {
    }

    private static final ThreadLocal<Last> LAST = new ThreadLocal<>();

    static DockerRoute classify(String method, String uri) {
        Last last = LAST.get();
        if (last != null && java.util.Objects.equals(last.method(), method) && java.util.Objects.equals(last.uri(), uri)) {
            return last.route();
        }
        DockerRoute route = classifyNow(method, uri);
        LAST.set(new Last(method, uri, route));
        return route;
    }

    private static DockerRoute classifyNow(String method, String uri) {
        RequestTarget target = RequestTarget.parse(uri);
        String path = routingPath(target.path());
        String m = method == null ? "" : method;
        // BuildKit's endpoints are refused whatever the method.
        if (path.equals("/session") || path.startsWith("/session/")) {
            return new DockerRoute(Kind.SESSION, path, null, target);
        }
        if (path.equals("/grpc") || path.startsWith("/grpc/")) {
            return new DockerRoute(Kind.GRPC, path, null, target);
        }
        // Every plugin endpoint but the read-only ones (list, inspect, privileges) manages plugins.
        if ((path.equals("/plugins") || path.startsWith("/plugins/")) && !(m.equals("GET") || m.equals("HEAD"))) {
            return new DockerRoute(Kind.PLUGIN_MANAGEMENT, path, null, target);
        }
        if (m.equals("GET") || m.equals("HEAD")) {
            DockerRoute read = named(path, "/containers/", "/archive", Kind.CONTAINER_ARCHIVE_READ, target);
            read = read != null || !m.equals("GET") ? read : named(path, "/containers/", "/export", Kind.CONTAINER_EXPORT, target);
            if (read != null) {
                return read;
            }
        }
        if (m.equals("PUT")) {
            DockerRoute put = named(path, "/containers/", "/archive", Kind.CONTAINER_ARCHIVE_PUT, target);
            if (put != null) {
                return put;
            }
        }
        if (!m.equals("POST")) {
            return new DockerRoute(Kind.OTHER, path, null, target);
        }
        Kind exact = switch (path) {
            case "/containers/create" -> Kind.CONTAINER_CREATE;
            case "/volumes/create" -> Kind.VOLUME_CREATE;
            case "/services/create" -> Kind.SERVICE_CREATE;
            case "/build" -> Kind.BUILD;
            case "/swarm/init" -> Kind.SWARM_INIT;
            case "/swarm/join" -> Kind.SWARM_JOIN;
            case "/commit" -> Kind.COMMIT;
            default -> null;
        };
        if (exact != null) {
            return new DockerRoute(exact, path, null, target);
        }
        DockerRoute named = named(path, "/containers/", "/update", Kind.CONTAINER_UPDATE, target);
        named = named != null ? named : named(path, "/containers/", "/exec", Kind.EXEC_CREATE, target);
        named = named != null ? named : named(path, "/containers/", "/start", Kind.CONTAINER_START, target);
        named = named != null ? named : named(path, "/containers/", "/restart", Kind.CONTAINER_RESTART, target);
        named = named != null ? named : named(path, "/services/", "/update", Kind.SERVICE_UPDATE, target);
        return named != null ? named : new DockerRoute(Kind.OTHER, path, null, target);
    }

    /** {@code prefix{name}suffix} with a non-empty name (which may contain slashes). */
    private static DockerRoute named(String path, String prefix, String suffix, Kind kind, RequestTarget target) {
        if (path.startsWith(prefix) && path.endsWith(suffix) && path.length() > prefix.length() + suffix.length()) {
            String name = path.substring(prefix.length(), path.length() - suffix.length());
            return new DockerRoute(kind, path, name, target);
        }
        return null;
    }

    /** The API version of the path's version prefix ({@code /v1.50/...} gives {@code 1.50}), or null. */
    static String apiVersion(String decodedPath) {
        int end = versionPrefixEnd(decodedPath);
        return end < 0 ? null : decodedPath.substring(2, end);
    }

    /** The decoded path as mux matches it against a route: its one version prefix removed, nothing else changed. */
    static String routingPath(String decodedPath) {
        int end = versionPrefixEnd(decodedPath);
        return end < 0 ? decodedPath : decodedPath.substring(end);
    }

    /**
     * Where moby's {@code versionMatcher}, {@code /v{version:[0-9.]+}} in front of a route's path (which
     * starts with '/'), ends: the index of the '/' after {@code /v} and one or more digits and dots, or -1
     * when the path has no such prefix (the regex {@code ^/v[0-9.]+(?=/)}, scanned by hand: it ran on every
     * request several times).
     */
    private static int versionPrefixEnd(String path) {
        if (!path.startsWith("/v")) {
            return -1;
        }
        int i = 2;
        while (i < path.length() && (path.charAt(i) >= '0' && path.charAt(i) <= '9' || path.charAt(i) == '.')) {
            i++;
        }
        return i > 2 && i < path.length() && path.charAt(i) == '/' ? i : -1;
    }

    /**
     * Whether the daemon routes this decoded path at all: gorilla/mux first answers a path that is
     * not its own clean form (Go's {@code path.Clean}, a trailing slash kept) with a 301 redirect,
     * before any route is tried.
     */
    static boolean clean(String decodedPath) {
        String p = decodedPath.isEmpty() ? "/" : decodedPath.charAt(0) == '/' ? decodedPath : "/" + decodedPath;
        String np = GoPath.clean(p);
        if (p.endsWith("/") && !np.equals("/")) {
            np += "/";
        }
        return np.equals(decodedPath);
    }
}
