package io.rediacc.gpu.inventory.service;

/** What applying one record did to the read model. */
public enum IngestOutcome {
    /** The record was newer and replaced what was held. */
    APPLIED,
    /** The record repeated what was held and only moved its last-seen time (a heartbeat). */
    REFRESHED,
    /** The record was not newer than what is held (a replay or a late duplicate): nothing changed. */
    NOT_NEWER,
    /**
     * Signed, but at or below the position already accepted for its key (a gate status's epoch and seq): a
     * replay, dropped and counted with reason {@code replay}.
     */
    REPLAY,
    /** A tombstone removed the machine or gate. */
    REMOVED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
