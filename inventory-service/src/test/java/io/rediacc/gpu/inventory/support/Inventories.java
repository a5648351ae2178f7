package io.rediacc.gpu.inventory.support;

import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.MachineInventory.CdiDeviceInfo;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;
import io.rediacc.gpu.contracts.events.MachineInventory.ToolkitState;
import io.rediacc.gpu.contracts.events.RepoInfo;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Inventories and gate reports shaped like the real ones (A100 host, WSL laptop), one machine name per test. */
public final class Inventories {

    public static final String GPU_A_GUID = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43";
    public static final String GPU_B_GUID = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

    private Inventories() {
    }

    /** A machine name no other test uses. */
    public static String uniqueMachine(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    /** An NVIDIA host with {@code cards} A100s: devices gpu=0..n-1 and gpu=all, two repos. */
    public static MachineInventory nvidiaHost(String machine, Instant generatedAt, int cards, String product) {
        List<Gpu> gpus = new ArrayList<>();
        List<CdiDeviceInfo> devices = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            gpus.add(new Gpu(i, "nvidia", product, "GPU-" + UUID.nameUUIDFromBytes((machine + i).getBytes()),
                    String.format("00000000:%02X:00.0", 0x07 + i), "550.127.05", 40960L, "/dev/dri/renderD" + (128 + i),
                    "Disabled"));
            devices.add(new CdiDeviceInfo("nvidia.com/gpu=" + i, List.of("/dev/nvidia" + i, "/dev/nvidiactl", "/dev/nvidia-uvm"),
                    "/etc/cdi/nvidia.yaml", "sha256:1f0c"));
        }
        devices.add(new CdiDeviceInfo("nvidia.com/gpu=all", List.of("/dev/nvidiactl", "/dev/nvidia-uvm"),
                "/etc/cdi/nvidia.yaml", "sha256:1f0c"));
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, MachineInventory.PLATFORM_LOCAL, "0.1.0",
                generatedAt, gpus, devices, new ToolkitState("installed", "1.17.8", "/etc/cdi/nvidia.yaml", null),
                "/run/nvidia-persistenced/socket",
                List.of(new RepoInfo("gpu-a", GPU_A_GUID, null), new RepoInfo("gpu-b", GPU_B_GUID, GPU_A_GUID)),
                List.of());
    }

    public static MachineInventory nvidiaHost(String machine, Instant generatedAt) {
        return nvidiaHost(machine, generatedAt, 2, "NVIDIA A100-SXM4-40GB");
    }

    /** An AMD host: rediacc.io/amd=gpu0, rediacc.io/amd=all and the render node. */
    public static MachineInventory amdHost(String machine, Instant generatedAt, String product) {
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, MachineInventory.PLATFORM_LOCAL, "0.1.0",
                generatedAt,
                List.of(new Gpu(0, "amd", product, null, "0000:63:00.0", null, 65536L, "/dev/dri/renderD128", null)),
                List.of(new CdiDeviceInfo("rediacc.io/amd=gpu0", List.of("/dev/kfd", "/dev/dri/renderD128"),
                                "/etc/cdi/rediacc-amd.yaml", "sha256:aa"),
                        new CdiDeviceInfo("rediacc.io/amd=all", List.of("/dev/kfd", "/dev/dri/renderD128"),
                                "/etc/cdi/rediacc-amd.yaml", "sha256:aa"),
                        new CdiDeviceInfo("rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"),
                                "/etc/cdi/rediacc-dri.yaml", "sha256:bb")),
                new ToolkitState("not-installed", null, null, "no NVIDIA GPU"), null, List.of(), List.of());
    }

    /** A gate's report: synced at {@code syncedAt}, enforcing {@code grants}, heartbeat 10 s. */
    public static GateStatus gate(String machine, String gateId, long version, Instant syncedAt, Grant... grants) {
        return new GateStatus(machine, gateId, version, GateStatus.SYNCED, List.of(grants),
                List.of(new RepoInfo("gpu-a", GPU_A_GUID, null)), 10, syncedAt);
    }

    public static Grant grant(String repo, String guid, String device, boolean exclusive) {
        return new Grant(guid, repo, device, exclusive, "alice", Instant.parse("2025-01-01T00:00:00Z"));
    }
}
