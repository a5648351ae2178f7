package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;

import java.time.Instant;

/**
 * A removal is final (issue 31): it revokes the machine's key, and the machine speaks again only after a new
 * registration. A record signed (its signed {@code ce_time}) before that point is from before the removal and
 * changes nothing, even when the machine re-registered the same key:
 * <ul>
 *   <li>a machine's record must be signed after its fence, the later of its last removal and its current key's
 *       registration ({@link #fence}); a machine never removed has no fence;</li>
 *   <li>a removal (a tombstone) must be signed at or after the current key's registration: an earlier one is an
 *       old removal replayed against a machine that rejoined since.</li>
 * </ul>
 */
public final class RemovalFence {

    private RemovalFence() {
    }

    /** The fence of a machine whose key was registered at {@code registeredAt}: null when never removed. */
    public static Instant fence(Instant registeredAt, Instant lastRemovedAt) {
        if (lastRemovedAt == null) {
            return null;
        }
        return registeredAt.isAfter(lastRemovedAt) ? registeredAt : lastRemovedAt;
    }

    /** Whether a machine's record signed at {@code signedAt} is after the machine's {@code fence} (null: never removed). */
    public static boolean signedAfter(Instant signedAt, Instant fence) {
        return fence == null || signedAt != null && signedAt.isAfter(fence);
    }

    /** Null when a machine's record signed at {@code signedAt} may count; else the refusal ({@link DropReason#REPLAY}). */
    public static RecordRefusal checkRecord(RecordAuthority.Machine machine, SignerKeys.MachineKey key, Instant signedAt) {
        if (signedAfter(signedAt, key.fence())) {
            return null;
        }
        return new RecordRefusal(DropReason.REPLAY, "a record of " + machine.who() + " signed at " + signedAt
                + ", not after the machine's removal and new registration at " + key.fence()
                + ": from before the removal, it changes nothing");
    }

    /** Null when a removal signed at {@code signedAt} may count against the machine's current key (null: none). */
    public static RecordRefusal checkRemoval(String machine, SignerKeys.MachineKey key, Instant signedAt) {
        if (key == null || signedAt != null && !signedAt.isBefore(key.registeredAt())) {
            return null;
        }
        return new RecordRefusal(DropReason.REPLAY, "a removal of machine " + machine + " signed at " + signedAt
                + ", before the machine's key registration at " + key.registeredAt()
                + ": an old removal replayed, it changes nothing");
    }
}
