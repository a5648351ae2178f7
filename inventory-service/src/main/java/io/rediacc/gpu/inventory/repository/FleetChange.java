package io.rediacc.gpu.inventory.repository;

/**
 * Something the dashboard shows changed on a machine: {@code kind} is {@code inventory}, {@code gate},
 * {@code grants}, {@code grant-event} or {@code refusal} (the database triggers of migration V3_22).
 */
public record FleetChange(String kind, String machine) {

    /** A notification's payload, {@code <kind>:<machine>}; null when it is not one. */
    static FleetChange parse(String payload) {
        int colon = payload == null ? -1 : payload.indexOf(':');
        return colon <= 0 ? null : new FleetChange(payload.substring(0, colon), payload.substring(colon + 1));
    }
}
