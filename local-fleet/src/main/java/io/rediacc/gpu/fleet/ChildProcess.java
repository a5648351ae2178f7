package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/** A process the fleet started: its log file, its pid (recorded for {@code ./fleet down}), how to stop it. */
final class ChildProcess implements Child {

    /**
     * How long a child may take to become ready (a Kafka storage format, a broker, a service's health). On an idle
     * 2-core machine each takes 2-20 s; on one shared with other fleets and test runs a broker took 60-150 s and a
     * format over 60 s (CI at load 80). The bound only costs time when a start really hangs, and then the error names
     * the child and the tail of its log.
     */
    static final Duration START_BOUND = Duration.ofMinutes(5);

    private final String name;
    private final Process process;
    private final Path log;
    private final List<String> command;

    private ChildProcess(String name, Process process, Path log, List<String> command) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.command = List.copyOf(command);
    }

    static ChildProcess start(String name, List<String> command, Path workDir, Path logDir, java.util.Map<String, String> env)
            throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        ChildProcess child = new ChildProcess(name, p, log, command);
        // a class-data archive this JVM records is kept once it has ended normally (also when it ends by itself)
        p.onExit().thenAccept(ended -> ClassDataArchive.exited(child.command, ended.exitValue()));
        return child;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long pid() {
        return process.pid();
    }

    @Override
    public Path log() {
        return log;
    }

    @Override
    public boolean alive() {
        return process.isAlive();
    }

    /** Waits until {@code ready} holds; fails with the tail of the log when the process dies or time runs out. */
    void awaitReady(BooleanSupplier ready, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new FleetException(name + " exited with code " + process.exitValue() + " while starting; last lines of "
                        + log + ":\n" + tail(30));
            }
            if (ready.getAsBoolean()) {
                return;
            }
            sleep(200);
        }
        throw new FleetException(name + " did not become ready within " + timeout.toSeconds() + " s; last lines of " + log
                + ":\n" + tail(30));
    }

    void awaitHttpOk(String url, Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        awaitReady(() -> {
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                return r.statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, timeout);
    }

    /** Asks the process to end (SIGTERM), then kills it if it is still there after {@code grace}. */
    @Override
    public void stop(Duration grace) {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            try {
                if (!process.waitFor(ClassDataArchive.stopGrace(command, grace).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly().waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        // here too, not only in onExit's callback: a fleet that stops its children as its JVM ends keeps the archive
        if (!process.isAlive()) {
            ClassDataArchive.exited(command, process.exitValue());
        }
    }

    @Override
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FleetException("interrupted");
        }
    }
}
