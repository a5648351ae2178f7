package io.rediacc.gpu.contracts.api;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;

import java.time.Instant;
import java.util.List;

/**
 * One machine: its GPUs, its grantable CDI devices with who holds each now, its repos and gates
 * ({@code GET /api/v1/machines/{machine}}: inventory-service writes it, rdc's machine gpu list reads it).
 *
 * @param orphaned the names the machine's live gates hold grants for that its inventory no longer defines
 */
public record MachineDetail(String machine, String platform, Instant generatedAt, long ageSeconds, boolean stale,
                            String agentVersion, List<MachineInventory.Gpu> gpus, List<CdiDeviceView> cdiDevices,
                            List<RepoInfo> repos, List<GateView> gates, MachineInventory.ToolkitState toolkit,
                            String persistencedSocket, List<String> specProblems, List<OrphanedDevice> orphaned) {

    public MachineDetail {
        gpus = gpus == null ? List.of() : gpus;
        cdiDevices = cdiDevices == null ? List.of() : cdiDevices;
        repos = repos == null ? List.of() : repos;
        gates = gates == null ? List.of() : gates;
        orphaned = orphaned == null ? List.of() : orphaned;
    }
}
