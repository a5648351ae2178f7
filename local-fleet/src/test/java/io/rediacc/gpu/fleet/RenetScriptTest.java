package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The machine-side command the product page names (issue 33, problem 4): the node package's {@code renet setup}
 * is {@code node-agent prepare}, the very setup {@code rdc machine setup} runs over SSH, with every option passed
 * through, reached through the package's {@code /usr/sbin/renet} link. A stand-in {@code node-agent} beside the
 * package's script records what it is given (the package itself is installed and run by
 * deploy/debian/check-packages.sh in CI).
 */
class RenetScriptTest {

    private static final Path SCRIPT = MarkdownLinksTest.REPO.resolve("deploy/debian/node/files/bin/renet");

    private record Run(int exit, String out) {
    }

    private static Path install(Path root) throws IOException {
        Path bin = Files.createDirectories(root.resolve("usr/lib/rediacc-gpu-node/bin"));
        Files.copy(SCRIPT, bin.resolve("renet"));
        Files.writeString(bin.resolve("node-agent"), "#!/bin/sh\necho \"node-agent $*\"\n");
        bin.resolve("renet").toFile().setExecutable(true);
        bin.resolve("node-agent").toFile().setExecutable(true);
        Path sbin = Files.createDirectories(root.resolve("usr/sbin"));
        // as the package links it (deploy/debian/pom.xml): a relative link from /usr/sbin
        return Files.createSymbolicLink(sbin.resolve("renet"), Path.of("../lib/rediacc-gpu-node/bin/renet"));
    }

    private static Run run(Path renet, String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = renet.toString();
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    @Test
    void renetSetupIsNodeAgentPrepareWithEveryOption(@TempDir Path root) throws Exception {
        Path renet = install(root);

        Run setup = run(renet, "setup", "--install-nvidia-toolkit", "false", "--force");

        assertThat(setup.exit()).isZero();
        assertThat(setup.out()).isEqualTo("node-agent prepare --install-nvidia-toolkit false --force\n");
        assertThat(run(renet, "setup", "--help").out()).isEqualTo("node-agent prepare --help\n");
    }

    @Test
    void anythingElseIsAUsageErrorNamingSetup(@TempDir Path root) throws Exception {
        Path renet = install(root);

        Run other = run(renet, "install");

        assertThat(other.exit()).isEqualTo(2);
        assertThat(other.out()).contains("renet: unknown command 'install'").contains("renet setup [--install-nvidia-toolkit");
        assertThat(run(renet, "--help").out()).startsWith("usage: renet setup [--install-nvidia-toolkit auto|true|false]");
    }
}
