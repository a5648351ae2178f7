package io.rediacc.gpu.grants.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/** One running instance of the packaged service ({@code target/quarkus-app/quarkus-run.jar}) in its own JVM. */
public final class Replica implements AutoCloseable {

    private final String name;
    private final int port;
    private final Process process;
    private final Path log;

    private Replica(String name, int port, Process process, Path log) {
        this.name = name;
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /** Starts the packaged application with the given configuration (as system properties). */
    public static Replica start(String name, Map<String, String> config) throws IOException {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: run the integration tests with mvn verify (after package)");
        }
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1"); // a short-lived test JVM: start fast rather than peak
        command.add("-Dquarkus.http.port=" + port);
        command.add("-Dquarkus.management.port=" + freePort()); // two replicas on one host: /q/metrics ports differ too
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(jar.toString());
        Path log = Path.of("target", "it-" + name + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new Replica(name, port, process, log);
    }

    public String baseUri() {
        return "http://localhost:" + port;
    }

    public String name() {
        return name;
    }

    /** Waits until the instance answers its readiness check. */
    public void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        await(name + " ready (its log: " + log + ")").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + log);
            }
            try {
                return client.send(HttpRequest.newBuilder(URI.create(baseUri() + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200;
            } catch (IOException notYet) {
                return false; // still starting
            }
        });
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
