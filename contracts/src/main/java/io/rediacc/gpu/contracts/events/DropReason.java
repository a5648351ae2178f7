package io.rediacc.gpu.contracts.events;

/** Why a consumer drops a record before reading it; the tag of every consumer's drop counter. */
public enum DropReason {
    /** No signature or key id header. */
    UNSIGNED("unsigned"),
    /** The signature does not verify with the key its key id names. */
    BAD_SIGNATURE("bad-signature"),
    /** Signed, but with a key that is not the machine's registered key (another machine's, or an old one). */
    FOREIGN_KEY("foreign-key"),
    /** The machine has no registered key ({@code rdc machine setup} registers it). */
    UNREGISTERED("unregistered-machine"),
    /** The record key is not the payload's machine (or machine/gateId). */
    KEY_MISMATCH("key-mismatch"),
    /** {@code ce_time}, the record timestamp or a time in the payload is too far in the future. */
    FUTURE("future-time"),
    /** A tombstone not signed by the central services' key (the machine-removal path). */
    FOREIGN_TOMBSTONE("foreign-tombstone"),
    /**
     * Signed and valid, but at or below the highest position (snapshot version, status sequence, removal
     * generation) this reader already accepted for the same producer and key: a replay, a rollback, or
     * a record from before a machine's removal.
     */
    REPLAY("replay"),
    /** Anything else the bounds refuse: names, sizes, numbers, unreadable JSON. */
    INVALID("invalid");

    private final String tag;

    DropReason(String tag) {
        this.tag = tag;
    }

    /** The metric tag and log word. */
    public String tag() {
        return tag;
    }
}
