package io.rediacc.gpu.grants.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * One running instance of the packaged service ({@code target/quarkus-app/quarkus-run.jar}) in its own JVM.
 * It binds port 0 (API and management interface) and its log says which port it got: a port picked free
 * beforehand could be taken by another JVM on the host (CI runs four test lanes at once) before the
 * replica binds it.
 */
public final class Replica implements AutoCloseable {

    /** Quarkus's start line: "... started in 3.1s. Listening on: http://0.0.0.0:41234. Management interface ..." */
    private static final Pattern LISTENING = Pattern.compile("Listening on: https?://[^\\s/]+:(\\d+)");

    private final String name;
    private final Process process;
    private final Path log;
    /** The API's port, 0 until the log says it (see {@link #awaitReady}). */
    private volatile int port;

    private Replica(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts the packaged application with the given configuration (as system properties). */
    public static Replica start(String name, Map<String, String> config) throws IOException {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: run the integration tests with mvn verify (after package)");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1"); // a short-lived test JVM: start fast rather than peak
        // any free port, bound by the replica itself (no race with other JVMs); two replicas on one host: the
        // /q/metrics ports differ too
        command.add("-Dquarkus.http.port=0");
        command.add("-Dquarkus.management.port=0");
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(jar.toString());
        Path log = Path.of("target", "it-" + name + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new Replica(name, process, log);
    }

    /** The API's address; known once {@link #awaitReady} saw the port in the log. */
    public String baseUri() {
        if (port == 0) {
            throw new IllegalStateException(name + " has not said its port yet: awaitReady first (its log: " + log + ")");
        }
        return "http://localhost:" + port;
    }

    public String name() {
        return name;
    }

    /** Waits until the instance's log says its port and it answers its readiness check there. */
    public void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        await(name + " ready (its log: " + log + ")").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see " + log);
            }
            if (port == 0) {
                port = portInLog();
                if (port == 0) {
                    return false; // still starting
                }
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

    /** The port of Quarkus's "Listening on" line, 0 while the log has none. */
    private int portInLog() throws IOException {
        // bytes, not readString: a half-written multi-byte character at the end must not fail the read
        Matcher m = LISTENING.matcher(new String(Files.readAllBytes(log), StandardCharsets.UTF_8));
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }
}
