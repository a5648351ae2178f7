package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH server (Debian's openssh-server) on 127.0.0.1, with its own host and user keys and
 * its own sshd_config (public keys only, no PAM): the machine end of {@code rdc machine setup} for
 * the local fleet's simulated machine and for the tests. sshd runs as the caller's user (root
 * here); keys already in {@code dir} are kept, so the host key stays the one known_hosts trusts.
 */
final class SshServer implements AutoCloseable {

    static final Path SSHD = Path.of("/usr/sbin/sshd");

    final Path dir;
    final int port;
    final Path userKey;
    final Path hostKey;
    private Process process;

    private SshServer(Path dir, int port) {
        this.dir = dir;
        this.port = port;
        this.userKey = dir.resolve("id_ed25519");
        this.hostKey = dir.resolve("ssh_host_ed25519_key");
    }

    static boolean available() {
        return Files.isExecutable(SSHD) && Files.isExecutable(Path.of("/usr/bin/ssh")) && Files.isExecutable(Path.of("/usr/bin/ssh-keygen"));
    }

    /** Writes keys (when missing), authorized_keys and sshd_config for a server on {@code port}. */
    static SshServer configure(Path dir, int port) throws IOException {
        SshServer s = new SshServer(dir, port);
        Files.createDirectories(dir);
        keygen(s.hostKey);
        keygen(s.userKey);
        Files.copy(dir.resolve("id_ed25519.pub"), dir.resolve("authorized_keys"), StandardCopyOption.REPLACE_EXISTING);
        Files.createDirectories(Path.of("/run/sshd")); // sshd's privilege separation directory
        Files.writeString(dir.resolve("sshd_config"), """
                Port %d
                ListenAddress 127.0.0.1
                HostKey %s
                PidFile %s
                AuthorizedKeysFile %s
                AuthenticationMethods publickey
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                UsePAM no
                PermitRootLogin prohibit-password
                StrictModes no
                SetEnv PATH=%s
                """.formatted(port, s.hostKey, dir.resolve("sshd.pid"), dir.resolve("authorized_keys"),
                System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin")));
        return s;
    }

    /** Configures and starts a server on a free port; returns once it accepts connections. */
    static SshServer start(Path dir) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        SshServer server = configure(dir, port);
        server.process = new ProcessBuilder(server.command()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("sshd.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!server.listening()) {
            if (!server.process.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new IOException("sshd did not start: " + Files.readString(dir.resolve("sshd.log")));
            }
            Thread.sleep(50);
        }
        return server;
    }

    /** sshd in the foreground, logging to stderr. */
    List<String> command() {
        return List.of(SSHD.toString(), "-D", "-e", "-f", dir.resolve("sshd_config").toString());
    }

    boolean listening() {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A known_hosts file that trusts this server's host key (what an operator has after accepting it). */
    Path knownHosts() throws IOException {
        Path f = dir.resolve("known_hosts");
        Files.writeString(f, "[127.0.0.1]:" + port + " " + Files.readString(dir.resolve("ssh_host_ed25519_key.pub")));
        return f;
    }

    /** A known_hosts file that knows nothing. */
    Path emptyKnownHosts() throws IOException {
        Path f = dir.resolve("known_hosts.empty");
        Files.writeString(f, "");
        return f;
    }

    String address() {
        return "root@127.0.0.1:" + port;
    }

    private static void keygen(Path file) throws IOException {
        if (Files.exists(file)) {
            return;
        }
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rediacc-local-fleet", "-f", file.toString())
                .redirectErrorStream(true).start();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("ssh-keygen failed: " + new String(p.getInputStream().readAllBytes()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
