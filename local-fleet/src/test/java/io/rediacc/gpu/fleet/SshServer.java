package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH server (Debian's openssh-server) on 127.0.0.1 and a random port, with throwaway
 * host and user keys and its own sshd_config (public keys only, no PAM): the machine end of
 * {@code rdc machine setup} in tests. sshd runs as the test's user (root here).
 */
final class SshServer implements AutoCloseable {

    static final Path SSHD = Path.of("/usr/sbin/sshd");

    final Path dir;
    final int port;
    final Path userKey;
    final Path hostKey;
    private final Process process;

    private SshServer(Path dir, int port, Path userKey, Path hostKey, Process process) {
        this.dir = dir;
        this.port = port;
        this.userKey = userKey;
        this.hostKey = hostKey;
        this.process = process;
    }

    static boolean available() {
        return Files.isExecutable(SSHD) && Files.isExecutable(Path.of("/usr/bin/ssh"));
    }

    static SshServer start(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path hostKey = dir.resolve("ssh_host_ed25519_key");
        Path userKey = dir.resolve("id_ed25519");
        keygen(hostKey);
        keygen(userKey);
        Files.copy(dir.resolve("id_ed25519.pub"), dir.resolve("authorized_keys"));
        Files.createDirectories(Path.of("/run/sshd")); // sshd's privilege separation directory
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = dir.resolve("sshd_config");
        Files.writeString(config, """
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
                """.formatted(port, hostKey, dir.resolve("sshd.pid"), dir.resolve("authorized_keys"),
                System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin")));
        Process p = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                break;
            } catch (IOException e) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroy();
                    throw new IOException("sshd did not start: " + Files.readString(dir.resolve("sshd.log")));
                }
                Thread.sleep(50);
            }
        }
        return new SshServer(dir, port, userKey, hostKey, p);
    }

    /** A known_hosts file that trusts this server's host key. */
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

    private static void keygen(Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rdc-test", "-f", file.toString())
                .redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("ssh-keygen failed: " + new String(p.getInputStream().readAllBytes()));
        }
    }

    @Override
    public void close() {
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
