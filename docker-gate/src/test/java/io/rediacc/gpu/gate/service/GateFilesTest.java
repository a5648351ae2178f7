package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.gate.support.StandaloneGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gate refuses to start when anyone but its user or root could write (or swap) the repos
 * manifest, the state directory or the grant snapshot. The tests run as root, so "another user"
 * is a uid the test chowns a file to.
 */
class GateFilesTest {

    private static final long OTHER_UID = 4242;

    @TempDir
    Path dir;

    private final GateFiles files = GateFiles.ofThisProcess();

    private Path manifest() throws Exception {
        Path etc = Files.createDirectories(dir.resolve("etc"));
        return Files.writeString(etc.resolve("repos.yaml"), "repos: []\n");
    }

    private static void mode(Path p, String perms) throws Exception {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
    }

    @Test
    void aSafeLayoutPassesAndAMissingStateDirectoryIsCreatedPrivate() throws Exception {
        Path state = dir.resolve("var/state");
        assertThatCode(() -> files.check(manifest(), state, state.resolve("grants-m.json"))).doesNotThrowAnyException();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state))).isEqualTo("rwx------");
    }

    @Test
    void aGroupWritableManifestIsRefused() throws Exception {
        Path manifest = manifest();
        mode(manifest, "rw-rw-r--");
        assertThatThrownBy(() -> files.check(manifest, dir.resolve("state"), null))
                .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                .hasMessageContaining("the repos manifest (gate.manifest) " + manifest)
                .hasMessageContaining("writable by its group")
                .hasMessageContaining("chmod go-w " + manifest);
    }

    @Test
    void aManifestInADirectoryOthersCanWriteIsRefused() throws Exception {
        Path manifest = manifest();
        mode(manifest.getParent(), "rwxrwxrwx"); // not sticky: anyone could rename another file over it
        assertThatThrownBy(() -> files.check(manifest, dir.resolve("state"), null))
                .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                .hasMessageContaining(manifest.getParent() + " (above the repos manifest")
                .hasMessageContaining("writable by its group and others");
    }

    @Test
    void aManifestOwnedByAnotherUserIsRefused() throws Exception {
        Path manifest = manifest();
        Files.setAttribute(manifest, "unix:uid", (int) OTHER_UID);
        assertThatThrownBy(() -> files.check(manifest, dir.resolve("state"), null))
                .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                .hasMessageContaining("owned by uid " + OTHER_UID);
    }

    @Test
    void aSymlinkedManifestIsJudgedByItsTargetToo() throws Exception {
        Path open = Files.createDirectories(dir.resolve("open"));
        Path target = Files.writeString(open.resolve("repos.yaml"), "repos: []\n");
        mode(open, "rwxrwxrwx");
        Path link = Files.createSymbolicLink(Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml"), target);
        assertThatThrownBy(() -> files.check(link, dir.resolve("state"), null))
                .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                .hasMessageContaining(open.toString())
                .hasMessageContaining("writable by its group and others");
    }

    @Test
    void aWorldWritableStateDirectoryIsRefused() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        mode(state, "rwxrwxrwx");
        assertThatThrownBy(() -> files.check(manifest(), state, null))
                .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                .hasMessageContaining("the gate's state directory (gate.state-dir) " + state);
    }

    @Test
    void aSnapshotFileOwnedByAnotherUserIsRefused() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        Path snapshot = Files.writeString(state.resolve("grants-m.json"), "{}");
        Files.setAttribute(snapshot, "unix:uid", (int) OTHER_UID);
        assertThatThrownBy(() -> files.check(manifest(), state, snapshot))
                .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                .hasMessageContaining("the grant snapshot file " + snapshot);
    }

    @Test
    void theGateDoesNotStartOnAnUnsafeManifest() throws Exception {
        Path manifest = manifest();
        mode(manifest, "rw-rw-rw-");
        try (StandaloneGates gates = new StandaloneGates()) {
            assertThatThrownBy(() -> gates.start(manifest, dir.resolve("state"), "gate-f"))
                    .isInstanceOf(GateFiles.UnsafeGateFileException.class)
                    .hasMessageContaining("writable by");
        }
    }
}
