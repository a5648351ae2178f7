package io.rediacc.gpu.fleet;

import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.keyprovider.FileKeyPairProvider;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.shell.ProcessShellCommandFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Iterator;

/**
 * The simulated machine's SSH server: Apache MINA SSHD inside the JVM that starts it, on 127.0.0.1, so that
 * {@code rdc machine setup} reaches the simulated machine over SSH with OpenSSH's client, as an operator reaches
 * a real one, whether or not this host has an SSH server installed. Public keys only: the one user key it
 * writes; the host key it writes stays the one known_hosts trusts across restarts (keys already in {@code dir}
 * are kept). Each exec request runs as {@code /bin/sh -c <command>} as the JVM's user;
 * login is as root, the simulated machine's administrator. Keys are ECDSA P-256: the JDK signs and verifies
 * those itself, where ed25519 would need another crypto provider in MINA.
 */
final class SshServer implements AutoCloseable {

    static final String USER = "root";

    final Path dir;
    final int port;
    /** The private key rdc logs in with (OpenSSH format, 0600). */
    final Path userKey;
    /** The host's public key, one OpenSSH line ({@code ssh-keygen -lf} prints its fingerprint). */
    final Path hostKeyPub;
    private final org.apache.sshd.server.SshServer server;

    private SshServer(Path dir, int port, org.apache.sshd.server.SshServer server) {
        this.dir = dir;
        this.port = port;
        this.userKey = dir.resolve("id_ecdsa");
        this.hostKeyPub = dir.resolve("ssh_host_ecdsa_key.pub");
        this.server = server;
    }

    /** Starts a server on a free port ({@link FleetPorts#pick()}); returns once it accepts connections. */
    static SshServer start(Path dir) throws IOException {
        return start(dir, FleetPorts.pick());
    }

    /** Starts a server on {@code port} with the keys in {@code dir} (written when missing). */
    static SshServer start(Path dir, int port) throws IOException {
        Files.createDirectories(dir);
        KeyPair host = keyPair(dir.resolve("ssh_host_ecdsa_key"));
        KeyPair user = keyPair(dir.resolve("id_ecdsa"));
        org.apache.sshd.server.SshServer server = org.apache.sshd.server.SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(port);
        server.setKeyPairProvider(KeyPairProvider.wrap(host));
        server.setPublickeyAuthenticator((name, key, session) -> USER.equals(name) && KeyUtils.compareKeys(user.getPublic(), key));
        server.setPasswordAuthenticator(null);
        server.setKeyboardInteractiveAuthenticator(null);
        // each exec request as /bin/sh -c <command> (what OpenSSH runs with the user's shell): quotes, pipes and ;
        // mean what they mean to rdc; stdin up to the channel's EOF (rdc sends its package so), stdout and stderr apart
        server.setCommandFactory(ProcessShellCommandFactory.INSTANCE);
        server.start();
        return new SshServer(dir, port, server);
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
        Files.writeString(f, "[127.0.0.1]:" + port + " " + Files.readString(hostKeyPub));
        return f;
    }

    /** A known_hosts file that knows nothing. */
    Path emptyKnownHosts() throws IOException {
        Path f = dir.resolve("known_hosts.empty");
        Files.writeString(f, "");
        return f;
    }

    String address() {
        return USER + "@127.0.0.1:" + port;
    }

    /** The key pair in {@code file} (OpenSSH format), made and written with {@code file.pub} when missing. */
    private static KeyPair keyPair(Path file) throws IOException {
        try {
            if (!Files.exists(file)) {
                KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
                generator.initialize(new ECGenParameterSpec("secp256r1"));
                KeyPair pair = generator.generateKeyPair();
                Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                Files.deleteIfExists(tmp);
                // ssh refuses a private key others can read
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                try (OutputStream out = Files.newOutputStream(tmp)) {
                    OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(pair, "rediacc-local-fleet", null, out);
                }
                Files.writeString(file.resolveSibling(file.getFileName() + ".pub"),
                        PublicKeyEntry.toString(pair.getPublic()) + " rediacc-local-fleet\n");
                Files.move(tmp, file);
                return pair;
            }
            Iterator<KeyPair> keys = new FileKeyPairProvider(file).loadKeys(null).iterator();
            if (!keys.hasNext()) {
                throw new IOException("no key in " + file + "; delete it and its .pub to have new ones made");
            }
            return keys.next();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot make or read the SSH key " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            server.stop(true);
        } catch (IOException e) {
            // stopping immediately: the sessions go with it
        }
    }
}
