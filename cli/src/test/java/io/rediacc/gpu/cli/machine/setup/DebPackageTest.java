package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** rdc reads the machine package itself (no dpkg on the workstation): name, version, and what identifies its files. */
class DebPackageTest {

    @TempDir
    Path dir;

    @Test
    void nameVersionAndTheDigestOfItsMd5sumsAreReadFromTheControlArchive() throws Exception {
        String md5sums = "d41d8cd98f00b204e9800998ecf8427e  usr/lib/rediacc-gpu-node/bin/node-agent\n";
        Path deb = deb("control.tar.gz", "Package: rediacc-gpu-node\nVersion: 1:0.2.0~SNAPSHOT\nArchitecture: all\n"
                + "Description: x\n multi-line: not a field\n", md5sums);
        DebPackage p = DebPackage.read(deb);
        assertThat(p.name()).isEqualTo("rediacc-gpu-node");
        assertThat(p.version()).isEqualTo("1:0.2.0~SNAPSHOT");
        assertThat(p.md5sumsDigest()).isEqualTo(DebPackage.sha256(md5sums.getBytes(StandardCharsets.UTF_8)));
        assertThat(p.canonicalFileName()).isEqualTo("rediacc-gpu-node_0.2.0~SNAPSHOT_all.deb");
        // another build of the same version: its files differ, and so does the digest
        Path other = deb("control.tar.gz", "Package: rediacc-gpu-node\nVersion: 1:0.2.0~SNAPSHOT\n", md5sums.replace('d', 'e'));
        assertThat(DebPackage.read(other).md5sumsDigest()).isNotEqualTo(p.md5sumsDigest());
    }

    @Test
    void aFileThatIsNoDebianPackageIsAUsageErrorSayingHowToGetOne() throws Exception {
        Path notDeb = Files.writeString(dir.resolve("x.deb"), "hello");
        assertThatThrownBy(() -> DebPackage.read(notDeb)).isInstanceOf(Failure.class)
                .hasMessageContaining("not a Debian package").hasMessageContaining("--package")
                .satisfies(e -> assertThat(((Failure) e).exitCode()).isEqualTo(ExitCodes.USAGE));
        Path xz = deb("control.tar.xz", "Package: p\nVersion: 1\n", "");
        assertThatThrownBy(() -> DebPackage.read(xz)).hasMessageContaining("only control.tar.gz is read");
    }

    @Test
    void theNewestPackageOfADirectoryIsChosenAndAnEmptyOneIsRefused() throws Exception {
        Path older = deb("control.tar.gz", "Package: rediacc-gpu-node\nVersion: 0.1\n", "x\n");
        Files.move(older, dir.resolve("rediacc-gpu-node_0.1_all.deb"));
        Files.setLastModifiedTime(dir.resolve("rediacc-gpu-node_0.1_all.deb"), java.nio.file.attribute.FileTime.fromMillis(1000));
        Path newer = deb("control.tar.gz", "Package: rediacc-gpu-node\nVersion: 0.2\n", "y\n");
        Files.move(newer, dir.resolve("rediacc-gpu-node_0.2_all.deb"));
        assertThat(DebPackage.locate(dir).version()).isEqualTo("0.2");
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThatThrownBy(() -> DebPackage.locate(empty)).hasMessageContaining("no machine package (rediacc-gpu-node_*.deb) in " + empty);
    }

    /** A .deb as dpkg-deb lays it out: ar of debian-binary, the control archive, data.tar.gz (built with tar and ar). */
    private Path deb(String controlMember, String control, String md5sums) throws Exception {
        Path work = Files.createTempDirectory(dir, "deb");
        Path c = Files.createDirectories(work.resolve("c"));
        Files.writeString(c.resolve("control"), control);
        Files.writeString(c.resolve("md5sums"), md5sums);
        Files.writeString(work.resolve("debian-binary"), "2.0\n");
        Path d = Files.createDirectories(work.resolve("d/usr"));
        String compress = controlMember.endsWith(".xz") ? "-J" : "-z";
        sh(work, "tar", compress, "-cf", controlMember, "-C", c.toString(), "./control", "./md5sums");
        sh(work, "tar", "-czf", "data.tar.gz", "-C", d.getParent().toString(), "./usr");
        Path deb = work.resolve("p.deb");
        sh(work, "ar", "rc", deb.toString(), "debian-binary", controlMember, "data.tar.gz");
        return deb;
    }

    private static void sh(Path cwd, String... cmd) throws Exception {
        Process p = new ProcessBuilder(List.of(cmd)).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0).as(String.join(" ", cmd) + ": " + out).isTrue();
    }
}
