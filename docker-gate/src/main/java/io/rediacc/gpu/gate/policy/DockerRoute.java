package io.rediacc.gpu.gate.policy;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which Docker API endpoint a request reaches, decided on what the daemon routes on: the
 * percent-decoded path, cleaned like gorilla/mux cleans it, with any {@code /v<digits and dots>}
 * version prefix removed (none is fine), absolute-form targets and query strings accepted.
 * Matching is case-insensitive and ignores a trailing slash: the daemon would answer such a path
 * with 404 or a redirect, and inspecting it anyway costs nothing. {@code {name}} segments may
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

    private static final Pattern VERSION_PREFIX = Pattern.compile("^/[vV][0-9.]+(?=/|$)");

    static DockerRoute classify(String method, String uri) {
        RequestTarget target = RequestTarget.parse(uri);
        String path = routingPath(target.path());
        String lower = path.toLowerCase(Locale.ROOT);
        // BuildKit's endpoints are refused whatever the method.
        if (lower.equals("/session") || lower.startsWith("/session/")) {
            return new DockerRoute(Kind.SESSION, path, null, target);
        }
        if (lower.equals("/grpc") || lower.startsWith("/grpc/")) {
            return new DockerRoute(Kind.GRPC, path, null, target);
        }
        // Every plugin endpoint but the read-only ones (list, inspect, privileges) manages plugins.
        if ((lower.equals("/plugins") || lower.startsWith("/plugins/"))
                && (method == null || !(method.equalsIgnoreCase("GET") || method.equalsIgnoreCase("HEAD")))) {
            return new DockerRoute(Kind.PLUGIN_MANAGEMENT, path, null, target);
        }
        if (method != null && (method.equalsIgnoreCase("GET") || method.equalsIgnoreCase("HEAD"))) {
            DockerRoute read = named(path, lower, "/containers/", "/archive", Kind.CONTAINER_ARCHIVE_READ, target);
            read = read != null || !method.equalsIgnoreCase("GET") ? read
                    : named(path, lower, "/containers/", "/export", Kind.CONTAINER_EXPORT, target);
            if (read != null) {
                return read;
            }
        }
        if (method != null && method.equalsIgnoreCase("PUT")) {
            DockerRoute put = named(path, lower, "/containers/", "/archive", Kind.CONTAINER_ARCHIVE_PUT, target);
            if (put != null) {
                return put;
            }
        }
        if (method == null || !method.equalsIgnoreCase("POST")) {
            return new DockerRoute(Kind.OTHER, path, null, target);
        }
        Kind exact = switch (lower) {
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
        DockerRoute named = named(path, lower, "/containers/", "/update", Kind.CONTAINER_UPDATE, target);
        named = named != null ? named : named(path, lower, "/containers/", "/exec", Kind.EXEC_CREATE, target);
        named = named != null ? named : named(path, lower, "/containers/", "/start", Kind.CONTAINER_START, target);
        named = named != null ? named : named(path, lower, "/containers/", "/restart", Kind.CONTAINER_RESTART, target);
        named = named != null ? named : named(path, lower, "/services/", "/update", Kind.SERVICE_UPDATE, target);
        return named != null ? named : new DockerRoute(Kind.OTHER, path, null, target);
    }

    /** {@code prefix{name}suffix} with a non-empty name (which may contain slashes). */
    private static DockerRoute named(String path, String lower, String prefix, String suffix, Kind kind, RequestTarget target) {
        if (lower.startsWith(prefix) && lower.endsWith(suffix) && lower.length() > prefix.length() + suffix.length()) {
            String name = path.substring(prefix.length(), path.length() - suffix.length());
            return new DockerRoute(kind, path, name, target);
        }
        return null;
    }

    /** The API version of the path's first version prefix ({@code /v1.50/...} gives {@code 1.50}), or null. */
    static String apiVersion(String decodedPath) {
        String p = GoPath.clean(decodedPath.startsWith("/") ? decodedPath : "/" + decodedPath);
        java.util.regex.Matcher m = VERSION_PREFIX.matcher(p);
        return m.find() ? m.group().substring(2) : null;
    }

    /** The decoded path as mux matches it: cleaned, without trailing slash, without version prefixes. */
    static String routingPath(String decodedPath) {
        String p = decodedPath.startsWith("/") ? decodedPath : "/" + decodedPath;
        p = GoPath.clean(p);
        while (true) {
            String stripped = VERSION_PREFIX.matcher(p).replaceFirst("");
            if (stripped.equals(p)) {
                break;
            }
            p = stripped.isEmpty() ? "/" : stripped;
        }
        return p;
    }
}
