package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One service over HTTP, with the JDK's {@link HttpURLConnection}: nothing to configure, nothing to
 * start, and for an {@code http://} URL no TLS set-up at all (the JDK's {@code HttpClient} loads
 * the default SSL context and parses the CA certificates even for plain HTTP, which cost rdc about
 * a third of its start-up). Every request carries the bearer token when one is configured and the
 * actor for the audit trail; a service that cannot be reached fails the command with one line
 * naming it and its URL. Redirects are not followed.
 */
public final class ServiceClient {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final String service;
    private final URI base;
    private final String token;
    private final String actor;

    public ServiceClient(String service, URI base, String token, String actor) {
        this.service = service;
        this.base = base;
        this.token = token;
        this.actor = actor;
    }

    public String service() {
        return service;
    }

    public URI base() {
        return base;
    }

    public Reply get(String path) {
        return send("GET", path, null, DEFAULT_TIMEOUT);
    }

    public Reply post(String path, String json, Duration timeout) {
        return send("POST", path, json, timeout);
    }

    public Reply put(String path, String json, Duration timeout) {
        return send("PUT", path, json, timeout);
    }

    public Reply delete(String path, Duration timeout) {
        return send("DELETE", path, null, timeout);
    }

    private Reply send(String method, String path, String json, Duration timeout) {
        HttpURLConnection connection = open(path);
        try {
            connection.setRequestMethod(method);
            connection.setInstanceFollowRedirects(false);
            connection.setUseCaches(false);
            connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
            connection.setReadTimeout((int) timeout.toMillis());
            // errors come as RFC 9457 problem+json (docs/ERRORS.md)
            connection.setRequestProperty("Accept", "application/json, application/problem+json");
            connection.setRequestProperty("User-Agent", "rdc");
            if (token != null) {
                connection.setRequestProperty("Authorization", "Bearer " + token);
            }
            if (actor != null) {
                connection.setRequestProperty("X-Actor", actor);
            }
            byte[] body = json == null ? null : json.getBytes(StandardCharsets.UTF_8);
            if (body != null) {
                connection.setRequestProperty("Content-Type", "application/json");
                connection.setDoOutput(true);
                connection.setFixedLengthStreamingMode(body.length);
            }
            try {
                connection.connect();
            } catch (SocketTimeoutException e) {
                throw unreachable("no connection within " + CONNECT_TIMEOUT.toSeconds() + "s");
            }
            if (body != null) {
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(body);
                }
            }
            int status = connection.getResponseCode();
            return new Reply(service, base.toString(), status, body(connection, status));
        } catch (SocketTimeoutException e) {
            throw new Failure(ExitCodes.ERROR, service + " at " + base + " did not answer " + method + " " + path
                    + " within " + timeout.toSeconds() + "s");
        } catch (UnknownHostException e) {
            throw unreachable("unknown host " + base.getHost());
        } catch (ConnectException e) {
            throw unreachable(reason(e, "connection refused").toLowerCase(java.util.Locale.ROOT));
        } catch (IOException e) {
            throw unreachable(reason(e, e.getClass().getSimpleName()));
        }
    }

    private HttpURLConnection open(String path) {
        URI uri;
        try {
            uri = URI.create(base + path);
        } catch (IllegalArgumentException e) {
            throw unreachable(e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw unreachable("invalid URI scheme " + (scheme.isEmpty() ? "(none)" : scheme) + "; use http:// or https://");
        }
        if (uri.getHost() == null) {
            throw unreachable("no host in the URL");
        }
        try {
            return (HttpURLConnection) uri.toURL().openConnection();
        } catch (IOException | IllegalArgumentException e) {
            throw unreachable(reason(e, e.getClass().getSimpleName()));
        }
    }

    /** The answer's body as text; an error status answers on the error stream (which may be absent). */
    private static String body(HttpURLConnection connection, int status) throws IOException {
        InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
        if (in == null) {
            return "";
        }
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The first message along the cause chain: the JDK often wraps the useful one. */
    private static String reason(Throwable e, String fallback) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getMessage();
            }
        }
        return fallback;
    }

    private Failure unreachable(String reason) {
        return new Failure(ExitCodes.ERROR, "cannot reach " + service + " at " + base + ": " + reason);
    }
}
