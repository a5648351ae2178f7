package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * The last applied grant snapshot on disk. Written to a temporary file and renamed over the old
 * one, so a crash mid-write leaves either the previous or the new snapshot, never half of one.
 */
public final class GrantSnapshotFile {

    private static final Logger LOG = Logger.getLogger(GrantSnapshotFile.class);

    /**
     * The largest snapshot file read at start. The file only ever holds a copy of a grant snapshot record of
     * {@code gpu.grants.v1}, and grant-service writes no record over 1,000,000 bytes (docs/EVENTS.md,
     * {@code grants.relay.max-record-bytes}); twice that leaves room for a raised limit. A larger file cannot be
     * one of those records (an older release's 100,000-grant file, or not the gate's): it is not read, so the
     * unit's small heap (deploy/systemd/docker-gate.service) is never spent on it — at 100,000 grants reading it
     * needs ~20 MB live, and an out-of-memory gate would restart into the same file forever. The gate then waits
     * for the topic, which decides what is granted (device requests get 503 until it has been read).
     */
    static final long MAX_FILE_BYTES = 2_000_000;

    private final Path file;

    public GrantSnapshotFile(Path stateDir, String machine) {
        this.file = stateDir.resolve("grants-" + machine + ".json");
    }

    public Path path() {
        return file;
    }

    public Optional<GrantSnapshot> read() {
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                LOG.errorf("ignoring the grant snapshot %s: %d bytes, more than any grant snapshot record holds"
                        + " (at most %d); the grants topic decides what is granted once it has been read", file, size,
                        MAX_FILE_BYTES);
                return Optional.empty();
            }
            // streamed, not read whole (GrantSnapshotDecoder: repeated values shared as read)
            try (var in = Files.newInputStream(file)) {
                return Optional.of(GrantSnapshotDecoder.read(in));
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | UncheckedIOException e) {
            LOG.warnf("cannot read the grant snapshot %s, starting without it: %s", file, e.getMessage());
            return Optional.empty();
        }
    }

    /** Removes the file (the topic holds no snapshot for this machine). */
    public void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.errorf("cannot remove the grant snapshot %s: %s", file, e.getMessage());
        }
    }

    public void write(GrantSnapshot snapshot) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            try {
                // streamed, not built as one byte[] first: the gate's heap is sized for the snapshot, not two copies
                try (var out = new java.io.BufferedOutputStream(Files.newOutputStream(tmp))) {
                    EventJson.mapper().writeValue(out, snapshot);
                }
                try (var channel = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                    channel.force(true);
                }
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
                // The rename is a change of the directory, kept only once the directory itself is synced: without
                // this, a power cut after the gate acknowledged this version could bring back the previous file,
                // and a gate restarted during a Kafka outage would enforce an older snapshot (a revoked grant).
                try (var directory = java.nio.channels.FileChannel.open(file.getParent(), java.nio.file.StandardOpenOption.READ)) {
                    directory.force(true);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            // Enforcement goes on from memory; only a restart during a Kafka outage would miss this version.
            LOG.errorf("cannot keep grant snapshot version %d in %s: %s", snapshot.version(), file, e.getMessage());
        }
    }
}
