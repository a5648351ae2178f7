package io.rediacc.gpu.gate.messaging;

import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;

/**
 * The epoch of a gate's statuses: rises with every start of the gate, so ({@code epoch}, {@code seq}) orders
 * every status it ever published and a replayed one is at or below what readers hold. The start's wall-clock
 * milliseconds, or one more than the last start's when the clock went back; kept (fsynced) in the state
 * directory before the first status goes out.
 */
public final class StatusEpoch {

    private static final Logger LOG = Logger.getLogger(StatusEpoch.class);

    private StatusEpoch() {
    }

    /** The next epoch of gate {@code gateId}, recorded in {@code stateDir}. */
    public static long next(Path stateDir, String gateId, Clock clock) {
        Path file = stateDir.resolve("status-epoch-" + gateId);
        long last = 0;
        try {
            last = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
        } catch (NoSuchFileException e) {
            // the gate's first start
        } catch (IOException | NumberFormatException e) {
            LOG.warnf("cannot read the last status epoch from %s (%s); using the clock", file, e.getMessage());
        }
        long epoch = Math.max(last + 1, clock.millis());
        try {
            Files.createDirectories(stateDir);
            Path tmp = Files.createTempFile(stateDir, file.getFileName().toString(), ".tmp");
            try {
                Files.writeString(tmp, Long.toString(epoch), StandardCharsets.US_ASCII);
                try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                    channel.force(true);
                }
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            // the clock still orders the next start's epoch after this one unless it goes back
            LOG.errorf("cannot keep status epoch %d in %s: %s", epoch, file, e.getMessage());
        }
        return epoch;
    }
}
