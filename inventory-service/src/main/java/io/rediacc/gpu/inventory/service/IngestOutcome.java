package io.rediacc.gpu.inventory.service;

/** What applying one record did to the read model. */
public enum IngestOutcome {
    /** The record was newer and replaced what was held. */
    APPLIED,
    /** The record repeated what was held and only moved its last-seen time (a heartbeat). */
    REFRESHED,
    /** The record was not newer than what is held (a replay or a late duplicate): nothing changed. */
    NOT_NEWER,
    /** A tombstone removed the machine or gate. */
    REMOVED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
