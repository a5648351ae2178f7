package io.rediacc.gpu.contracts.manifest;

import java.nio.file.Path;
import java.util.Locale;

/**
 * A socket named in the manifest: {@code unix:///absolute/path.sock} or {@code tcp://host:port}
 * (TCP is meant for tests; port 0 picks a free port for a listener).
 */
public record SocketEndpoint(Kind kind, Path path, String host, int port) {

    public enum Kind { UNIX, TCP }

    public static SocketEndpoint unix(Path path) {
        return new SocketEndpoint(Kind.UNIX, path, null, -1);
    }

    public static SocketEndpoint tcp(String host, int port) {
        return new SocketEndpoint(Kind.TCP, null, host, port);
    }

    /** Parses an endpoint; {@code field} names the manifest field in the error message. */
    public static SocketEndpoint parse(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new InvalidManifestException(field + " is missing: write unix:///path/to.sock or tcp://127.0.0.1:port");
        }
        String v = value.trim();
        String lower = v.toLowerCase(Locale.ROOT);
        if (lower.startsWith("unix://")) {
            String path = v.substring("unix://".length());
            if (!path.startsWith("/")) {
                throw new InvalidManifestException(field + " \"" + v + "\" must name an absolute path: unix:///run/rediacc/gate/repo.sock");
            }
            return unix(Path.of(path).normalize());
        }
        if (lower.startsWith("tcp://")) {
            String hostPort = v.substring("tcp://".length());
            int colon = hostPort.lastIndexOf(':');
            if (colon <= 0 || colon == hostPort.length() - 1) {
                throw new InvalidManifestException(field + " \"" + v + "\" must be tcp://host:port");
            }
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new InvalidManifestException(field + " \"" + v + "\" has a port that is not a number");
            }
            if (port < 0 || port > 65535) {
                throw new InvalidManifestException(field + " \"" + v + "\" has a port outside 0-65535");
            }
            return tcp(host, port);
        }
        throw new InvalidManifestException(field + " \"" + v + "\" is not a socket address: write unix:///path/to.sock or tcp://host:port");
    }

    @Override
    public String toString() {
        return kind == Kind.UNIX ? "unix://" + path : "tcp://" + host + ":" + port;
    }
}
