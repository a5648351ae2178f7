package io.rediacc.gpu.inventory.api;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;

import java.time.Instant;
import java.util.List;

/** One machine: its GPUs, its grantable CDI devices with who holds each now, its repos and gates. */
public record MachineDetail(String machine, String platform, Instant generatedAt, long ageSeconds, boolean stale,
                            String agentVersion, List<MachineInventory.Gpu> gpus, List<CdiDeviceView> cdiDevices,
                            List<RepoInfo> repos, List<GateView> gates, MachineInventory.ToolkitState toolkit,
                            String persistencedSocket, List<String> specProblems, List<OrphanedDevice> orphaned) {
}
