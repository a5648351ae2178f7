package io.rediacc.gpu.gate.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/** Runs the real docker CLI against a gate endpoint ({@code DOCKER_HOST}). */
public final class DockerCli {

    /** What a finished docker command printed and returned. */
    public record Result(int exitCode, String stdout, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + "\nstdout: " + stdout + "\nstderr: " + stderr;
        }
    }

    private static final String DOCKER = Files.isExecutable(Path.of("/usr/bin/docker")) ? "/usr/bin/docker" : "docker";

    /** The docker binary the tests run. */
    public static String binary() {
        return DOCKER;
    }

    private final String host;
    private final Path config;

    public DockerCli(String dockerHost) {
        this.host = dockerHost;
        try {
            this.config = Files.createTempDirectory("docker-cli-config");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A CLI using the config directory {@code config} (e.g. one whose {@code cli-plugins/} holds compose). */
    public DockerCli(String dockerHost, Path config) {
        this.host = dockerHost;
        this.config = config;
    }

    public Result run(String... args) {
        return runWithInput(null, args);
    }

    /** Runs docker with {@code stdin} piped in (then closed); null means no input at all. */
    public Result runWithInput(String stdin, String... args) {
        return runWithBytes(stdin == null ? null : stdin.getBytes(StandardCharsets.UTF_8), args);
    }

    /** Runs docker with the bytes {@code stdin} piped in (then closed), e.g. a tar for {@code docker cp -}. */
    public Result runWithBytes(byte[] stdin, String... args) {
        Process p = start(args);
        try {
            if (stdin != null) {
                try {
                    p.getOutputStream().write(stdin);
                } catch (IOException closedEarly) {
                    // docker stopped reading (refused): its answer says why
                }
            }
            try {
                p.getOutputStream().close();
            } catch (IOException closedEarly) {
                // as above
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread o = pump(p.getInputStream(), out);
            Thread e = pump(p.getErrorStream(), err);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                o.join(1000);
                e.join(1000);
                throw new AssertionError("docker " + String.join(" ", args) + " did not finish in 30 s; stdout: "
                        + out + " stderr: " + err);
            }
            o.join(5000);
            e.join(5000);
            return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** Starts docker and leaves the process to the caller (streams, TTY tests). */
    public Process start(String... args) {
        List<String> command = new ArrayList<>();
        command.add(DOCKER);
        command.addAll(List.of(args));
        return start(command);
    }

    public Process start(List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("DOCKER_HOST", host);
        pb.environment().put("DOCKER_CONFIG", config.toString());
        pb.environment().put("DOCKER_CLI_HINTS", "false");
        pb.environment().remove("DOCKER_CONTEXT");
        pb.environment().remove("DOCKER_TLS_VERIFY");
        try {
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until the docker CLI that {@code script} runs has put its terminal in raw mode: it does so
     * once the hijacked stream is up, and what is typed before that the terminal echoes (and a Ctrl-D
     * ends) by itself. Reads the terminal's mode with {@code stty} on the pty the CLI reads from.
     */
    public static void awaitRawTerminal(Process script) {
        await("the docker CLI's terminal in raw mode").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> script.descendants().anyMatch(DockerCli::readsFromRawTerminal));
    }

    private static boolean readsFromRawTerminal(ProcessHandle process) {
        try {
            Path tty = Files.readSymbolicLink(Path.of("/proc", Long.toString(process.pid()), "fd", "0"));
            if (!tty.toString().startsWith("/dev/pts/")) {
                return false;
            }
            Process stty = new ProcessBuilder("stty", "-a", "-F", tty.toString()).redirectErrorStream(true).start();
            List<String> settings = List.of(new String(stty.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .split("[\\s;]+"));
            return stty.waitFor(10, TimeUnit.SECONDS) && stty.exitValue() == 0
                    && settings.contains("-icanon") && settings.contains("-echo");
        } catch (IOException e) {
            return false; // the process ended, or its stdin is gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Thread pump(InputStream in, ByteArrayOutputStream out) {
        Thread t = new Thread(() -> {
            try {
                in.transferTo(out);
            } catch (IOException ignored) {
                // process ended
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }
}
