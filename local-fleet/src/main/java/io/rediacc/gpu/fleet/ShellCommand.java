package io.rediacc.gpu.fleet;

import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * One SSH exec request of {@link SshServer}: {@code /bin/sh -c <command>}, as OpenSSH's sshd runs a command
 * with the user's shell, so that quoting, pipes and {@code ;} mean what they mean to rdc. The channel's input
 * is the command's stdin (closed at the channel's EOF: rdc sends its package this way), its stdout and stderr
 * go back apart, and its exit status is the channel's, sent once both outputs are drained. (MINA's own
 * ProcessShellCommandFactory splits the command line at blanks, without a shell.)
 */
final class ShellCommand implements Command {

    private final String command;
    private InputStream in;
    private OutputStream out;
    private OutputStream err;
    private ExitCallback exit;
    private Process process;

    ShellCommand(String command) {
        this.command = command;
    }

    @Override
    public void setInputStream(InputStream in) {
        this.in = in;
    }

    @Override
    public void setOutputStream(OutputStream out) {
        this.out = out;
    }

    @Override
    public void setErrorStream(OutputStream err) {
        this.err = err;
    }

    @Override
    public void setExitCallback(ExitCallback exit) {
        this.exit = exit;
    }

    @Override
    public void start(ChannelSession channel, Environment env) throws IOException {
        process = new ProcessBuilder("/bin/sh", "-c", command).start();
        // the command's stdin closes at the channel's EOF; the channel's outputs stay open for the exit status,
        // which the channel sends with its own EOF and close
        Thread stdin = pump("stdin", in, process.getOutputStream(), true);
        Thread stdout = pump("stdout", process.getInputStream(), out, false);
        Thread stderr = pump("stderr", process.getErrorStream(), err, false);
        Thread waiter = new Thread(() -> {
            int status;
            try {
                status = process.waitFor();
                stdout.join();
                stderr.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                status = 255;
            }
            stdin.interrupt(); // a command that exits before reading all its input: the rest is not wanted
            exit.onExit(status);
        }, "ssh-exec-wait");
        waiter.setDaemon(true);
        waiter.start();
    }

    @Override
    public void destroy(ChannelSession channel) {
        if (process != null && process.isAlive()) {
            process.destroyForcibly(); // the client went away: so does what it started
        }
    }

    /** Copies {@code from} to {@code to} until {@code from} ends, flushing each piece (progress lines arrive as written). */
    private static Thread pump(String name, InputStream from, OutputStream to, boolean closeAtEnd) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[32 * 1024];
            try {
                int n;
                while ((n = from.read(buffer)) >= 0) {
                    to.write(buffer, 0, n);
                    to.flush();
                }
                if (closeAtEnd) {
                    to.close();
                }
            } catch (IOException e) {
                // the other side closed: the process's exit status says the rest
            }
        }, "ssh-exec-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
