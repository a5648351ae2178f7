package io.rediacc.gpu.inventory.api;

import java.time.Instant;

/**
 * A gate of a machine, as last reported.
 *
 * @param live the gate was heard from within its liveness window (3 of its heartbeats by default)
 */
public record GateView(String gateId, long appliedVersion, String state, boolean live, Instant syncedAt,
                       Instant lastSeenAt, int heartbeatSeconds) {
}
