package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.ssh.Ssh;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;

/**
 * What one {@code rdc machine setup} run works with (the machine, its SSH connection, its root and
 * the options) and what its steps found out for the later ones (what {@code node-agent prepare}
 * reported).
 */
public final class SetupRun {

    private final Session session;
    private final String machine;
    private final Ssh ssh;
    private final String root;
    private final String searchPath;
    private final String installNvidiaToolkit;
    private final Duration wait;

    // reported by node-agent prepare
    Instant inventoryGeneratedAt;
    int repos;

    /**
     * @param root       the machine's file system root: {@code /}, or a simulated machine's root directory
     * @param searchPath the search path of the machine's tools (a simulated machine's stand-ins), or null
     */
    public SetupRun(Session session, String machine, Ssh ssh, String root, String searchPath, String installNvidiaToolkit,
                    Duration wait) {
        this.session = session;
        this.machine = machine;
        this.ssh = ssh;
        this.root = root;
        this.searchPath = searchPath;
        this.installNvidiaToolkit = installNvidiaToolkit;
        this.wait = wait;
    }

    public Session session() {
        return session;
    }

    public String machine() {
        return machine;
    }

    public Ssh ssh() {
        return ssh;
    }

    public String root() {
        return root;
    }

    /** Whether the machine is simulated: a directory standing for {@code /} on the SSH host. */
    public boolean simulated() {
        return !root.equals("/");
    }

    /** A path of the machine as the SSH host sees it: {@code /etc/cdi}, or {@code <root>/etc/cdi} on a simulated machine. */
    public String hostPath(String machinePath) {
        return simulated() ? root.replaceAll("/+$", "") + machinePath : machinePath;
    }

    public String searchPath() {
        return searchPath;
    }

    public String installNvidiaToolkit() {
        return installNvidiaToolkit;
    }

    public Duration waitFor() {
        return wait;
    }

    /** Prints one progress line (indented under the run's first line), at once. */
    public void progress(String line) {
        PrintWriter out = session.out();
        out.println("  " + line);
        out.flush();
    }

    /** The last (up to three) non-blank lines of a command's output, for a one-line message. */
    static String lastLines(String s) {
        var l = s.lines().filter(x -> !x.isBlank()).toList();
        return l.isEmpty() ? "(no message)" : String.join(" / ", l.subList(Math.max(0, l.size() - 3), l.size()));
    }
}
