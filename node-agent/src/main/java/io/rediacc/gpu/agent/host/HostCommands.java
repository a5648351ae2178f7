package io.rediacc.gpu.agent.host;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs host executables ({@code nvidia-smi}, {@code nvidia-ctk}, the package manager,
 * {@code systemctl}) found on a search path, like a shell does. Tests and simulations put stand-in
 * scripts first on that path; the real machine uses its {@code PATH}.
 */
public final class HostCommands {

    private final List<Path> searchPath;
    private final String pathVariable;

    public HostCommands(String pathVariable) {
        this.pathVariable = pathVariable == null ? "" : pathVariable;
        List<Path> dirs = new ArrayList<>();
        for (String part : this.pathVariable.split(File.pathSeparator)) {
            if (!part.isBlank()) {
                dirs.add(Path.of(part));
            }
        }
        this.searchPath = List.copyOf(dirs);
    }

    /** The process's own {@code PATH}. */
    public static HostCommands fromEnvironment() {
        return new HostCommands(System.getenv().getOrDefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"));
    }

    /** This search path with {@code dir} searched last. */
    public HostCommands withFallback(Path dir) {
        return new HostCommands(pathVariable.isEmpty() ? dir.toString() : pathVariable + File.pathSeparator + dir);
    }

    public String pathVariable() {
        return pathVariable;
    }

    /** The first executable named {@code name} on the search path. */
    public Optional<Path> find(String name) {
        for (Path dir : searchPath) {
            Path candidate = dir.resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    public boolean has(String name) {
        return find(name).isPresent();
    }

    /**
     * Runs {@code name args...} and waits at most {@code timeout}; output is captured, not shown.
     * Returns empty when no such executable is on the search path.
     */
    public Optional<CommandResult> run(Duration timeout, String name, String... args) {
        Optional<Path> exe = find(name);
        if (exe.isEmpty()) {
            return Optional.empty();
        }
        List<String> command = new ArrayList<>();
        command.add(exe.get().toString());
        command.addAll(List.of(args));
        String line = name + (args.length == 0 ? "" : " " + String.join(" ", args));
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("node-agent-out", ".txt");
            err = Files.createTempFile("node-agent-err", ".txt");
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            Map<String, String> env = pb.environment();
            env.put("PATH", pathVariable);
            // Parsed output must not depend on the operator's locale; installs must never prompt.
            env.put("LC_ALL", "C");
            env.put("DEBIAN_FRONTEND", "noninteractive");
            Process p = pb.start();
            boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
            return Optional.of(new CommandResult(line, finished ? p.exitValue() : -1,
                    Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), !finished));
        } catch (IOException e) {
            return Optional.of(new CommandResult(line, -1, "", "cannot run: " + e.getMessage(), false));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(new CommandResult(line, -1, "", "interrupted", false));
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // a leftover temp file is harmless
            }
        }
    }
}
