package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.signing.GrantSnapshotCopy;
import io.rediacc.gpu.contracts.signing.SignedRecord;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * This gate's copy of its machine's last applied grant snapshot on disk, read, verified and written by
 * {@link GrantSnapshotCopy} (contracts: node-agent's setup reads the same file to guard the granted names);
 * here only what the gate does about a file it cannot use, which is to log it and wait for the topic. A file
 * larger than any grants record ({@link GrantSnapshotCopy#MAX_FILE_BYTES}) is not read at all, so the unit's
 * small heap is never spent on it; a file of an older release (the bare snapshot, unsigned) reads as no copy.
 */
public final class GrantSnapshotFile {

    private static final Logger LOG = Logger.getLogger(GrantSnapshotFile.class);

    static final long MAX_FILE_BYTES = GrantSnapshotCopy.MAX_FILE_BYTES;

    private final Path file;

    public GrantSnapshotFile(Path stateDir, String machine) {
        this.file = GrantSnapshotCopy.file(stateDir, machine);
    }

    public Path path() {
        return file;
    }

    /** The signed record kept on disk, not verified yet ({@link GrantStore#loadFromDisk()} verifies it). */
    public Optional<SignedRecord> read() {
        GrantSnapshotCopy.Read read = GrantSnapshotCopy.read(file);
        if (read instanceof GrantSnapshotCopy.Unusable u) {
            LOG.warnf("ignoring the grant snapshot %s: %s; the grants topic decides what is granted once it has been read",
                    file, u.why());
        }
        return read instanceof GrantSnapshotCopy.Found f ? Optional.of(f.record()) : Optional.empty();
    }

    /** Removes the file. */
    public void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.errorf("cannot remove the grant snapshot %s: %s", file, e.getMessage());
        }
    }

    /** Keeps {@code record} (a verified snapshot record of version {@code version}) as the copy on disk. */
    public void write(SignedRecord record, long version) {
        try {
            GrantSnapshotCopy.write(file, record);
        } catch (IOException e) {
            // Enforcement goes on from memory; only a restart during a Kafka outage would miss this version.
            LOG.errorf("cannot keep grant snapshot version %d in %s: %s", version, file, e.getMessage());
        }
    }
}
