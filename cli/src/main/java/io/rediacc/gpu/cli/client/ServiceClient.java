package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One service over HTTP (the JDK client: nothing to configure, nothing to start). Every request
 * carries the bearer token when one is configured and the actor for the audit trail; a service
 * that cannot be reached fails the command with one line naming it and its URL.
 */
public final class ServiceClient {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final String service;
    private final URI base;
    private final String token;
    private final String actor;
    private final HttpClient http;

    public ServiceClient(String service, URI base, String token, String actor) {
        this.service = service;
        this.base = base;
        this.token = token;
        this.actor = actor;
        this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    public String service() {
        return service;
    }

    public URI base() {
        return base;
    }

    public Reply get(String path) {
        return send(request(path, DEFAULT_TIMEOUT).GET(), path);
    }

    public Reply post(String path, String json, Duration timeout) {
        return send(request(path, timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)), path);
    }

    public Reply delete(String path, Duration timeout) {
        return send(request(path, timeout).DELETE(), path);
    }

    private HttpRequest.Builder request(String path, Duration timeout) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Accept", "application/json")
                .header("User-Agent", "rdc");
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        if (actor != null) {
            builder.header("X-Actor", actor);
        }
        return builder;
    }

    private Reply send(HttpRequest.Builder builder, String path) {
        HttpRequest request = builder.build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(service, base.toString(), response.statusCode(), response.body());
        } catch (HttpConnectTimeoutException e) {
            throw unreachable("no connection within " + CONNECT_TIMEOUT.toSeconds() + "s");
        } catch (HttpTimeoutException e) {
            throw new Failure(ExitCodes.ERROR, service + " at " + base + " did not answer " + request.method() + " " + path
                    + " within " + request.timeout().map(Duration::toSeconds).orElse(0L) + "s");
        } catch (ConnectException e) {
            throw unreachable(e.getCause() instanceof UnresolvedAddressException ? "unknown host " + base.getHost()
                    : reason(e, "connection refused"));
        } catch (IOException e) {
            throw unreachable(reason(e, e.getClass().getSimpleName()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(ExitCodes.ERROR, "interrupted while waiting for " + service);
        } catch (IllegalArgumentException e) {
            throw unreachable(e.getMessage());
        }
    }

    /** The first message along the cause chain: the JDK client often wraps the useful one. */
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
