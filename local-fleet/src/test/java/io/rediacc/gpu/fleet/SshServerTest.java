package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet's embedded SSH server answers OpenSSH's client as a machine's sshd does, for what rdc machine setup
 * sends it: a shell command line (quotes, pipes, {@code ;}), a package on stdin, progress on stdout apart from
 * stderr, the command's exit status, and nothing for a key it was not given. No SSH server need be installed.
 */
class SshServerTest {

    static final Path DIR = Path.of("target/ssh-server-test").toAbsolutePath();
    static SshServer server;

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    static void start() throws IOException {
        server = SshServer.start(DIR);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aShellCommandLineRunsAsTheShellReadsIt() throws Exception {
        Result r = ssh(server.userKey, "printf '%s|' 'two words' \"and $((1 + 2))\"; echo done | tr a-z A-Z", null);

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("two words|and 3|DONE\n");
    }

    @Test
    void stdinReachesTheCommandWholeAndItsOutputsAndExitStatusComeBackApart() throws Exception {
        byte[] payload = new byte[3 * 1024 * 1024 + 17]; // a package's size, not a multiple of any buffer
        new java.util.Random(33).nextBytes(payload);
        Path file = DIR.resolve("payload.bin");
        Files.write(file, payload);

        Result r = ssh(server.userKey, "wc -c; echo to-stderr >&2; exit 7", file);

        assertThat(r.exit()).isEqualTo(7);
        assertThat(r.out().strip()).isEqualTo(Integer.toString(payload.length));
        assertThat(r.err()).isEqualTo("to-stderr\n");
    }

    @Test
    void aKeyTheServerWasNotGivenIsRefused() throws Exception {
        Path stranger = DIR.resolve("stranger");
        Files.deleteIfExists(stranger);
        Files.deleteIfExists(DIR.resolve("stranger.pub"));
        Process keygen = new ProcessBuilder("ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f", stranger.toString())
                .redirectErrorStream(true).start();
        assertThat(keygen.waitFor(20, TimeUnit.SECONDS) && keygen.exitValue() == 0).isTrue();

        Result r = ssh(stranger, "true", null);

        assertThat(r.exit()).isEqualTo(255);
        assertThat(r.err()).contains("Permission denied");
    }

    /** OpenSSH's client with the options rdc gives it (strict host key, batch mode). */
    private static Result ssh(Path identity, String command, Path stdin) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("ssh", "-T", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", "UserKnownHostsFile=" + server.knownHosts(), "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", "-i", identity.toString(), "-o", "IdentitiesOnly=yes",
                "-p", Integer.toString(server.port), "-l", SshServer.USER, "127.0.0.1", "--", command));
        Process p = new ProcessBuilder(cmd).redirectInput(stdin == null ? ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))
                : ProcessBuilder.Redirect.from(stdin.toFile())).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        String out = read(p.getInputStream());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out, err.join());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
