package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.json.GrantSnapshotDecoder;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.json.StrictJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The gate's copy of its machine's newest grant snapshot, {@code grants-<machine>.json} in {@code gate.state-dir}:
 * the record grant-service signed (topic, key, {@code ce_time}, key id, signature and the value's exact bytes,
 * {@link SignedRecord}), so the copy verifies itself and nobody who can write the state directory can grant a device
 * by editing it. Its one reader and writer, for both sides that read it: docker-gate, which enforces it while Kafka
 * is out of reach, and node-agent's setup, which refuses to remove the CDI names it grants.
 *
 * <p>The file is one line of JSON naming the signature's parts ({@link Stored}), a newline, then the value's bytes
 * as received (no copy of them in another encoding: the file stays the size of the record). Written to a temporary
 * file and renamed over the old one, so a crash mid-write leaves either the previous or the new copy, never half.
 */
public final class GrantSnapshotCopy {

    /** Where docker-gate keeps it by default ({@code gate.state-dir}; the unit's {@code StateDirectory=rediacc/gate}). */
    public static final String DEFAULT_STATE_DIR = "/var/lib/rediacc/gate";

    /** The file's first line: {@code format} names the form, the rest are {@link SignedRecord}'s parts. */
    record Stored(String format, String topic, String key, String ceTime, String keyId, String signature) {
    }

    static final String FORMAT = "rediacc.gate.signed-grant-snapshot.v1";
    private static final String PREFIX = "grants-";
    private static final String SUFFIX = ".json";

    /**
     * The largest file read. It only ever holds a copy of a grant snapshot record of {@code gpu.grants.v1}, and
     * grant-service writes no record over 1,000,000 bytes (docs/EVENTS.md, {@code grants.relay.max-record-bytes});
     * twice that leaves room for a raised limit. A larger file cannot be one of those records (an older release's
     * 100,000-grant file, or not the gate's): it is not read, so the gate's small heap
     * (deploy/systemd/docker-gate.service) is never spent on it.
     */
    public static final long MAX_FILE_BYTES = 2_000_000;

    /**
     * How far a snapshot's {@code ce_time} may be ahead of the reader's clock, on the topic as in the copy: further
     * ahead, a writer of the topic could freeze the gate with a snapshot "from the future".
     */
    public static final Duration CLOCK_SKEW = Duration.ofMinutes(2);

    private GrantSnapshotCopy() {
    }

    /** The copy of {@code machine}'s snapshot in {@code stateDir}. */
    public static Path file(Path stateDir, String machine) {
        return stateDir.resolve(PREFIX + machine + SUFFIX);
    }

    /** Every copy in {@code stateDir}, by the machine its name gives (none when the directory does not exist). */
    public static Map<String, Path> files(Path stateDir) throws IOException {
        Map<String, Path> out = new TreeMap<>();
        if (!Files.isDirectory(stateDir)) {
            return out;
        }
        try (Stream<Path> s = Files.list(stateDir)) {
            s.forEach(p -> {
                String name = p.getFileName().toString();
                if (name.startsWith(PREFIX) && name.endsWith(SUFFIX) && name.length() > PREFIX.length() + SUFFIX.length()) {
                    out.put(name.substring(PREFIX.length(), name.length() - SUFFIX.length()), p);
                }
            });
        }
        return out;
    }

    /** What reading the file found. */
    public sealed interface Read {
    }

    /** No file. */
    public record Absent() implements Read {
    }

    /**
     * A file that is not a signed copy: too large, not in {@link #FORMAT} (an older release wrote the bare, unsigned
     * snapshot) or unreadable. {@code why} says which, without the file's name.
     */
    public record Unusable(String why) implements Read {
    }

    /** A signed copy, not verified yet ({@link #load} verifies it). */
    public record Found(SignedRecord record) implements Read {
    }

    /** Reads the copy kept in {@code file} without verifying it. */
    public static Read read(Path file) {
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                return new Unusable(size + " bytes, more than any grant snapshot record holds (at most " + MAX_FILE_BYTES + ")");
            }
            byte[] bytes = Files.readAllBytes(file);
            int newline = 0;
            while (newline < bytes.length && bytes[newline] != '\n') {
                newline++;
            }
            Stored stored = newline == bytes.length ? null
                    : StrictJson.events().readValue(bytes, 0, newline, Stored.class);
            if (stored == null || !FORMAT.equals(stored.format())) {
                return new Unusable("not a signed copy (format " + (stored == null ? "none" : stored.format()) + ", expected "
                        + FORMAT + "; an older release wrote the bare snapshot)");
            }
            return new Found(new SignedRecord(stored.topic(), stored.key(), stored.ceTime(), stored.keyId(),
                    stored.signature(), Arrays.copyOfRange(bytes, newline + 1, bytes.length)));
        } catch (NoSuchFileException e) {
            return new Absent();
        } catch (IOException | UncheckedIOException e) {
            return new Unusable("cannot be read: " + e.getMessage());
        }
    }

    /** Keeps {@code record} (a verified snapshot record) as the copy in {@code file}, durably: renamed, then the directory synced. */
    public static void write(Path file, SignedRecord record) throws IOException {
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
    }

    /** What loading the copy found. */
    public sealed interface Loaded {
    }

    /** No copy: the gate never applied a snapshot of this machine here (or the file was removed). */
    public record NoCopy() implements Loaded {
    }

    /**
     * A file that cannot be trusted as grant-service's snapshot of the machine; {@code why} says what is wrong.
     *
     * @param tampered whether it is a signed copy whose signature, topic, key or machine do not hold (edited, or
     *                 another machine's), rather than a file that is no signed copy at all
     */
    public record Refused(String why, boolean tampered) implements Loaded {
    }

    /** grant-service's snapshot of the machine, verified, and the signed record it came in. */
    public record Verified(GrantSnapshot snapshot, SignedRecord record) implements Loaded {
    }

    /**
     * The copy in {@code file}, verified as grant-service's snapshot record of {@code machine} with {@code keys}
     * (grant-service's key) at {@code now}.
     */
    public static Loaded load(Path file, String machine, SignerKeys keys, Instant now) {
        Read read = read(file);
        if (read instanceof Absent) {
            return new NoCopy();
        }
        if (read instanceof Unusable u) {
            return new Refused(u.why(), false);
        }
        SignedRecord copy = ((Found) read).record();
        String refused = refuse(copy, machine, keys, now);
        if (refused != null) {
            return new Refused("not a record grant-service signed for machine " + machine + " (" + refused + ")", true);
        }
        GrantSnapshot snapshot;
        try {
            snapshot = GrantSnapshotDecoder.read(copy.value());
        } catch (RuntimeException e) {
            return new Refused("signed, but not a strict grant snapshot: " + e.getMessage(), false);
        }
        if (!machine.equals(snapshot.machine())) {
            return new Refused("it is the snapshot of machine " + snapshot.machine() + ", not of " + machine, true);
        }
        return new Verified(snapshot, copy);
    }

    /**
     * Why {@code copy} is not grant-service's snapshot record of {@code machine} (null when it is): a copy that does
     * not verify was not written by a gate from the topic (edited, or an older release's).
     */
    public static String refuse(SignedRecord copy, String machine, SignerKeys keys, Instant now) {
        if (!Topics.GRANTS.equals(copy.topic()) || !machine.equals(copy.key())) {
            return "it is a record of " + copy.topic() + " key " + copy.key() + ", not of " + Topics.GRANTS + " key " + machine;
        }
        var refusal = new RecordVerifier(CLOCK_SKEW).verify(copy, keys, now);
        return refusal == null ? null : refusal.reason().tag() + ": " + refusal.detail();
    }
}
