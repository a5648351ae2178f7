package io.rediacc.gpu.cli.ssh;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Commands on a machine through OpenSSH's {@code ssh} client: the operator's own client, with its
 * configuration, agent and keys. Host keys are checked strictly (never accepted on first use) and
 * no prompt is ever shown ({@code BatchMode}); a refusal is turned into one line that says what to do.
 */
public final class Ssh {

    private final SshTarget target;

    public Ssh(SshTarget target) {
        this.target = target;
    }

    public SshTarget target() {
        return target;
    }

    /** What a remote command did: its exit status and what it wrote on stderr. */
    public record Result(int exitCode, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    /** The ssh command line running {@code remoteCommand} (a shell command line) on the machine. */
    public List<String> command(String remoteCommand) {
        List<String> cmd = new ArrayList<>(List.of("ssh", "-T",
                "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=yes",
                "-o", "ConnectTimeout=10",
                "-o", "ServerAliveInterval=15",
                "-o", "LogLevel=ERROR",
                "-p", Integer.toString(target.port()),
                "-l", target.user()));
        if (target.knownHosts() != null) {
            cmd.addAll(List.of("-o", "UserKnownHostsFile=" + target.knownHosts(), "-o", "GlobalKnownHostsFile=/dev/null"));
        }
        if (target.identity() != null) {
            cmd.addAll(List.of("-i", target.identity().toString(), "-o", "IdentitiesOnly=yes"));
        }
        cmd.add(target.host());
        cmd.add("--");
        cmd.add(target.needsSudo() ? "sudo -n sh -c " + quote(remoteCommand) : remoteCommand);
        return cmd;
    }

    /**
     * Runs {@code remoteCommand}, handing each stdout line to {@code lines} as it arrives. A failure
     * of ssh itself (exit 255: unreachable, host key refused, login refused) ends the command with
     * its {@link Failure}; the remote command's own exit status is returned.
     */
    public Result run(String remoteCommand, Consumer<String> lines) {
        return run(new ProcessBuilder(command(remoteCommand)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))), lines);
    }

    /** Runs {@code ssh} as {@code builder} describes it (its stdin may be a file to send, e.g. a package). */
    public Result run(ProcessBuilder builder, Consumer<String> lines) {
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            throw new Failure(ExitCodes.ERROR, "cannot run ssh (OpenSSH client): " + e.getMessage()
                    + "; install it (apt-get install openssh-client)");
        }
        return finish(p, lines);
    }

    Result finish(Process p, Consumer<String> lines) {
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.accept(line);
            }
            p.waitFor(1, TimeUnit.MINUTES);
        } catch (IOException e) {
            // the stream ended with the process; its exit status says the rest
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroy();
        }
        int exit = p.isAlive() ? -1 : p.exitValue();
        String stderr = err.join();
        if (exit == 255) {
            throw classify(stderr);
        }
        return new Result(exit, stderr);
    }

    /** ssh's own failure (exit 255) as one line and rdc's exit code. */
    Failure classify(String stderr) {
        String s = stderr.strip();
        String low = s.toLowerCase(Locale.ROOT);
        if (low.contains("remote host identification has changed")) {
            return new Failure(ExitCodes.SSH_REFUSED, "the host key of " + target.knownHostsName() + " has CHANGED since it was"
                    + " accepted" + knownHostsFile() + "; rdc refuses to connect (someone may be intercepting). If the machine"
                    + " was reinstalled, remove the old key with: ssh-keygen -R '" + target.knownHostsName() + "'"
                    + (target.knownHosts() == null ? "" : " -f " + target.knownHosts()) + ", then accept the new one");
        }
        if (low.contains("host key is known") || low.contains("host key verification failed")) {
            return unknownHostKey();
        }
        if (low.contains("permission denied") || low.contains("too many authentication failures")) {
            return new Failure(ExitCodes.SSH_REFUSED, target + " refused the login (" + lastLine(s) + "); check the user and"
                    + " key (--identity, machines.<name>.identity) and that the key is in the machine's authorized_keys");
        }
        return new Failure(ExitCodes.ERROR, "cannot reach " + target + " over SSH: " + (s.isEmpty() ? "ssh failed" : lastLine(s))
                + "; check the address (--host, machines.<name>.host) and that sshd runs there");
    }

    private Failure unknownHostKey() {
        String fingerprints = fingerprints();
        String file = target.knownHosts() != null ? target.knownHosts().toString() : "~/.ssh/known_hosts";
        return new Failure(ExitCodes.SSH_REFUSED, "the host key of " + target.knownHostsName() + " is not known" + knownHostsFile()
                + " and rdc does not trust a key on first use. The machine offers: " + fingerprints
                + ". If that is the machine's key (check on its console: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub),"
                + " accept it with: ssh-keyscan -p " + target.port() + " " + target.host() + " >> " + file);
    }

    /** The fingerprints the machine offers now (ssh-keyscan | ssh-keygen -lf -), for the operator to compare. */
    private String fingerprints() {
        try {
            Process scan = new ProcessBuilder("sh", "-c", "ssh-keyscan -T 5 -p " + target.port() + " " + quote(target.host())
                    + " 2>/dev/null | ssh-keygen -lf - 2>/dev/null").redirectErrorStream(true).start();
            String out = readAll(scan.getInputStream());
            scan.waitFor(15, TimeUnit.SECONDS);
            String listed = out.lines().map(String::strip).filter(l -> l.contains("SHA256:"))
                    .map(l -> {
                        String[] f = l.split("\\s+");
                        return f.length >= 4 ? f[1] + " " + f[f.length - 1] : l;
                    }).collect(Collectors.joining(", "));
            return listed.isEmpty() ? "(no key could be read with ssh-keyscan)" : listed;
        } catch (IOException e) {
            return "(ssh-keyscan failed: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    private String knownHostsFile() {
        return target.knownHosts() == null ? "" : " in " + target.knownHosts();
    }

    /** A shell word holding {@code s} exactly. */
    public static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    public static String quote(Path p) {
        return quote(p.toString());
    }

    private static String lastLine(String s) {
        List<String> l = s.lines().map(String::strip).filter(x -> !x.isEmpty()).toList();
        return l.isEmpty() ? "" : l.get(l.size() - 1);
    }

    private static String readAll(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
