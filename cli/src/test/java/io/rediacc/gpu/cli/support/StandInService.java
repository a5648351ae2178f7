package io.rediacc.gpu.cli.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A real HTTP server standing in for grant-service or inventory-service: it answers with JSON
 * recorded from the services' contract ({@code src/test/resources/recorded/}) and remembers every
 * request, so a test can check what rdc sent. inventory-service's {@code CliContractTest} checks
 * the recordings against the real service's answers.
 */
public final class StandInService implements AutoCloseable {

    /** A request as the service received it. */
    public record Request(String method, String rawPath, String rawQuery, Map<String, List<String>> headers, String body) {

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        /** Method, path and query as one string: {@code POST /api/v1/repos/a@m/grants?wait=5000ms}. */
        public String line() {
            return method + " " + rawPath + (rawQuery == null ? "" : "?" + rawQuery);
        }
    }

    /** An answer: status and JSON body. */
    public record Answer(int status, String body) {

        public static Answer recorded(int status, String service, String file) {
            return new Answer(status, Recordings.read(service, file));
        }

        public static Answer json(int status, String body) {
            return new Answer(status, body);
        }
    }

    private final HttpServer server;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<Route> routes = new CopyOnWriteArrayList<>();

    private record Route(String method, String path, Function<Request, Answer> answer) {
    }

    private StandInService() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.start();
    }

    public static StandInService start() {
        return new StandInService();
    }

    /** Answers {@code method path} (path as sent, query excluded) with {@code answer}. */
    public StandInService on(String method, String path, Answer answer) {
        return on(method, path, request -> answer);
    }

    public StandInService on(String method, String path, Function<Request, Answer> answer) {
        routes.add(0, new Route(method, path, answer));
        return this;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Request> requests() {
        return new ArrayList<>(requests);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body;
        try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                exchange.getRequestURI().getRawQuery(), Map.copyOf(exchange.getRequestHeaders()), body);
        requests.add(request);
        Answer answer = routes.stream()
                .filter(r -> r.method().equals(request.method()) && r.path().equals(request.rawPath()))
                .findFirst()
                .map(r -> r.answer().apply(request))
                .orElse(new Answer(404, "{\"type\":\"https://rediacc.io/problems/not-found\",\"title\":\"No such endpoint\",\"status\":404,"
                        + "\"error\":\"not-found\",\"detail\":\"stand-in has no route for "
                        + request.line() + "\",\"hint\":\"add one in the test\"}"));
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", answer.status() >= 400 ? "application/problem+json" : "application/json");
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }
}
