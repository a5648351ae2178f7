package io.rediacc.gpu.contracts.api;

import io.rediacc.gpu.contracts.events.Grant;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;

/**
 * A machine's grants as grant-service's database holds them, and what each of its gates reported it
 * enforces ({@code GET /api/v1/machines/{machine}/grants}; rdc's machine gpu list and setup read it).
 *
 * @param gates    every gate that has reported; {@code live} is false for one silent for 3 heartbeats
 * @param orphaned granted names the machine's last inventory no longer defines (a setup removed their CDI devices):
 *                 the gate refuses them, naming setup; {@code rdc machine setup <machine>} brings them back once the
 *                 device is there, {@code rdc repo gpu revoke} frees them
 */
@Schema(requiredProperties = {"machine", "version", "grants", "gates", "orphaned"})
public record MachineGrantsView(String machine, long version, List<Grant> grants, List<GateView> gates,
                                List<String> orphaned) {

    public MachineGrantsView {
        grants = grants == null ? List.of() : grants;
        gates = gates == null ? List.of() : gates;
        orphaned = orphaned == null ? List.of() : orphaned;
    }

    /**
     * One gate's last status.
     *
     * @param grants       what the gate enforces, when it listed them ({@code grantsListed}); a gate with more
     *                     grants than its status cap reports only their count and digest
     * @param grantCount   how many grants the gate enforces
     * @param grantsDigest SHA-256 over the gate's sorted grants (contracts {@code GateStatus.digest})
     */
    public record GateView(String gateId, long appliedVersion, String state, boolean live, Instant syncedAt,
                           List<Grant> grants, int grantCount, String grantsDigest, boolean grantsListed) {
    }
}
