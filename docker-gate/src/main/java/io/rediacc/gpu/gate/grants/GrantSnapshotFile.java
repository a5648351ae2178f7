package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.json.StrictJson;
import io.rediacc.gpu.contracts.signing.SignedRecord;
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
 * The last applied grant snapshot on disk, as the record grant-service signed: topic, key, {@code ce_time},
 * key id, signature and the value's exact bytes ({@link SignedRecord}), so the copy verifies itself at the
 * next start and nobody who can write the state directory can grant a device by editing it. Written to a
 * temporary file and renamed over the old one, so a crash mid-write leaves either the previous or the new
 * copy, never half of one. The file is one line of JSON naming the signature's parts ({@link Stored}), a
 * newline, then the value's bytes as received (no copy of them in another encoding: the file stays the size
 * of the record). A file of an older release (the bare snapshot, unsigned) reads as no copy.
 */
public final class GrantSnapshotFile {

    private static final Logger LOG = Logger.getLogger(GrantSnapshotFile.class);

    /** The file's first line: {@code format} names the form, the rest are {@link SignedRecord}'s parts. */
    record Stored(String format, String topic, String key, String ceTime, String keyId, String signature) {
    }

    static final String FORMAT = "rediacc.gate.signed-grant-snapshot.v1";

    /**
     * The largest snapshot file read at start. The file only ever holds a copy of a grant snapshot record of
     * {@code gpu.grants.v1}, and grant-service writes no record over 1,000,000 bytes (docs/EVENTS.md,
     * {@code grants.relay.max-record-bytes}); twice that leaves room for a raised limit. A larger file cannot be one of those records (an older release's 100,000-grant file,
     * or not the gate's): it is not read, so the unit's small heap (deploy/systemd/docker-gate.service) is never
     * spent on it. The gate then waits for the topic, which decides what is granted (device requests get 503
     * until it has been read).
     */
    static final long MAX_FILE_BYTES = 2_000_000;

    private final Path file;

    public GrantSnapshotFile(Path stateDir, String machine) {
        this.file = stateDir.resolve("grants-" + machine + ".json");
    }

    public Path path() {
        return file;
    }

    /** The signed record kept on disk, not verified yet ({@link GrantStore#loadFromDisk()} verifies it). */
    public Optional<SignedRecord> read() {
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                LOG.errorf("ignoring the grant snapshot %s: %d bytes, more than any grant snapshot record holds"
                        + " (at most %d); the grants topic decides what is granted once it has been read", file, size,
                        MAX_FILE_BYTES);
                return Optional.empty();
            }
            byte[] bytes = Files.readAllBytes(file);
            int newline = 0;
            while (newline < bytes.length && bytes[newline] != '\n') {
                newline++;
            }
            Stored stored = newline == bytes.length ? null
                    : StrictJson.events().readValue(bytes, 0, newline, Stored.class);
            if (stored == null || !FORMAT.equals(stored.format())) {
                LOG.warnf("ignoring the grant snapshot %s: not a signed copy (format %s, expected %s; an older release"
                        + " wrote the bare snapshot); the grants topic decides what is granted once it has been read",
                        file, stored == null ? "none" : stored.format(), FORMAT);
                return Optional.empty();
            }
            return Optional.of(new SignedRecord(stored.topic(), stored.key(), stored.ceTime(), stored.keyId(),
                    stored.signature(), java.util.Arrays.copyOfRange(bytes, newline + 1, bytes.length)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | UncheckedIOException e) {
            LOG.warnf("cannot read the grant snapshot %s, starting without it: %s", file, e.getMessage());
            return Optional.empty();
        }
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
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
            try {
                try (var out = new java.io.BufferedOutputStream(Files.newOutputStream(tmp))) {
                    out.write(EventJson.toBytes(new Stored(FORMAT, record.topic(), record.key(), record.ceTime(),
                            record.keyId(), record.signature())));
                    out.write('\n');
                    out.write(record.value());
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
            LOG.errorf("cannot keep grant snapshot version %d in %s: %s", version, file, e.getMessage());
        }
    }
}
