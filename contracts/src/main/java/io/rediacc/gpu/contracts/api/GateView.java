package io.rediacc.gpu.contracts.api;

import io.rediacc.gpu.contracts.events.DaemonStatus;

import java.time.Instant;
import java.util.List;

/**
 * A gate of a machine, as last reported to inventory-service (a {@link MachineDetail}'s gates; grant-service's
 * view of a gate, with the grants it enforces, is {@link MachineGrantsView.GateView}).
 *
 * @param live    the gate was heard from within its liveness window (3 of its heartbeats by default)
 * @param daemons each repo daemon as the gate last verified it (empty when the gate reports none)
 */
public record GateView(String gateId, long appliedVersion, String state, boolean live, Instant syncedAt,
                       Instant lastSeenAt, int heartbeatSeconds, List<DaemonStatus> daemons) {

    public GateView {
        daemons = daemons == null ? List.of() : List.copyOf(daemons);
    }
}
