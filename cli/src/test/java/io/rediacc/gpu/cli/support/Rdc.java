package io.rediacc.gpu.cli.support;

import io.rediacc.gpu.cli.CommandTree;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Runs rdc against stand-in services: their URLs on the command line, and a config file of the
 * test's own, so a developer's ~/.config/rdc cannot leak into a test.
 *
 * <p>Two ways to run: {@link #Rdc(StandInService, StandInService)} runs rdc's command tree
 * (the branch {@link CommandTree#commandLine(String...)} builds for the arguments, as rdc does) in
 * this JVM (fast: most tests); {@link #Rdc(Function,
 * StandInService, StandInService)} takes another launcher, e.g. the packaged rdc as a process
 * ({@code RdcLauncherIT}).
 */
public final class Rdc {

    private final Function<String[], LaunchResult> launcher;
    private final StandInService inventory;
    private final StandInService grants;
    private Path config;

    public Rdc(StandInService inventory, StandInService grants) {
        this(Rdc::inProcess, inventory, grants);
    }

    public Rdc(Function<String[], LaunchResult> launcher, StandInService inventory, StandInService grants) {
        this.launcher = launcher;
        this.inventory = inventory;
        this.grants = grants;
    }

    /** Uses a config file with this content. */
    public Rdc withConfig(String yaml) {
        try {
            config = Files.createTempFile("rdc-config", ".yaml");
            Files.writeString(config, yaml);
            config.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public LaunchResult run(String... args) {
        if (config == null) {
            withConfig("");
        }
        List<String> all = new ArrayList<>(List.of("--config", config.toString()));
        if (inventory != null) {
            all.addAll(List.of("--inventory-server", inventory.url()));
        }
        if (grants != null) {
            all.addAll(List.of("--grant-server", grants.url()));
        }
        all.addAll(List.of(args));
        return launcher.apply(all.toArray(String[]::new));
    }

    /** rdc without any service or config: help, completion, usage errors. */
    public static LaunchResult bare(String... args) {
        return inProcess(args);
    }

    /** The exact text rdc wrote to stdout (lines as printed, each ended by a newline). */
    public static String stdout(LaunchResult result) {
        return text(result.getOutputStream());
    }

    public static String stderr(LaunchResult result) {
        return text(result.getErrorStream());
    }

    /** A URL where nothing listens: a port that was free a moment ago. */
    public static String nothingListening() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static LaunchResult inProcess(String[] args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = CommandTree.commandLine(args)
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true));
        int exit = commandLine.execute(args);
        return new Captured(exit, out.toString().lines().toList(), err.toString().lines().toList());
    }

    private static String text(List<String> lines) {
        StringBuilder out = new StringBuilder();
        lines.forEach(l -> out.append(l).append('\n'));
        return out.toString();
    }

    /** A finished run: its exit code and what it printed, line by line. */
    public record Captured(int exitCode, List<String> getOutputStream, List<String> getErrorStream) implements LaunchResult {
    }
}
