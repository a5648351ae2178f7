package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.HostCommands;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Detects the machine's GPUs: NVIDIA through nvidia-smi, AMD through KFD topology and render
 * nodes, Intel through render nodes; the platform through {@code /dev/dxg}. Reads only; writes
 * nothing.
 */
public final class GpuDetector {

    public static final String WSL_LIB = "/usr/lib/wsl/lib";

    private GpuDetector() {
    }

    public static GpuDetection detect(HostRoot host, HostCommands commands, Duration timeout) {
        String platform = host.exists(HostRoot.DXG) ? MachineInventory.PLATFORM_WSL : MachineInventory.PLATFORM_LOCAL;
        List<String> notes = new ArrayList<>();
        // WSL's driver puts nvidia-smi in /usr/lib/wsl/lib, which is on a login shell's PATH but not on systemd's
        HostCommands search = platform.equals(MachineInventory.PLATFORM_WSL) ? commands.withFallback(host.path(WSL_LIB)) : commands;
        NvidiaSmi.Result nvidia = NvidiaSmi.query(search, timeout);
        notes.addAll(nvidia.notes());
        List<RenderNode> renderNodes = RenderNodes.scan(host);
        Map<String, RenderNode> renderByPci = new HashMap<>();
        Map<Integer, RenderNode> renderByMinor = new HashMap<>();
        for (RenderNode n : renderNodes) {
            if (n.pciAddress() != null) {
                renderByPci.putIfAbsent(n.pciAddress(), n);
            }
            renderByMinor.put(n.minor(), n);
        }
        PciIds pciIds = new PciIds(host);

        List<Gpu> gpus = new ArrayList<>();
        for (NvidiaGpu g : nvidia.gpus()) {
            RenderNode node = g.pciBusId() == null ? null : renderByPci.get(g.pciBusId());
            gpus.add(new Gpu(g.index(), GpuVendor.NVIDIA.inventoryName(), g.name(), g.uuid(), g.pciBusId(),
                    g.driverVersion(), g.memoryMiB(), node == null ? null : node.devicePath(), g.migMode()));
        }

        boolean kfd = host.exists(HostRoot.KFD);
        List<AmdCard> amdCards = new ArrayList<>();
        List<KfdGpu> kfdGpus = KfdTopology.scan(host);
        if (!kfdGpus.isEmpty()) {
            for (KfdGpu k : kfdGpus) {
                amdCards.add(new AmdCard(amdCards.size(), renderByMinor.get(k.renderMinor()), k));
            }
        } else {
            for (RenderNode n : renderNodes) {
                if (n.vendor() == GpuVendor.AMD) {
                    amdCards.add(new AmdCard(amdCards.size(), n, null));
                }
            }
        }
        String amdDriver = host.readTrimmed("/sys/module/amdgpu/version").filter(s -> !s.isEmpty()).orElse(null);
        for (AmdCard card : amdCards) {
            gpus.add(amdGpu(host, pciIds, card, amdDriver));
        }

        int intelIndex = 0;
        for (RenderNode n : renderNodes) {
            if (n.vendor() == GpuVendor.INTEL) {
                int device = hex(n.pciDevice());
                String name = pciIds.deviceName(GpuVendor.INTEL.pciId(), device)
                        .orElse("Intel GPU " + (n.pciDevice() == null ? "" : n.pciDevice()).trim());
                gpus.add(new Gpu(intelIndex++, GpuVendor.INTEL.inventoryName(), name, null, n.pciAddress(), null, null,
                        n.devicePath(), null));
            }
        }

        String socket = host.exists(HostRoot.PERSISTENCED_SOCKET) ? HostRoot.PERSISTENCED_SOCKET : null;
        return new GpuDetection(platform, nvidia.gpus(), renderNodes, kfd, amdCards, gpus, socket, notes);
    }

    private static Gpu amdGpu(HostRoot host, PciIds pciIds, AmdCard card, String driver) {
        RenderNode node = card.renderNode();
        KfdGpu k = card.kfd();
        String sysfsDevice = node == null ? null : HostRoot.DRM_CLASS + "/" + node.name() + "/device";
        int deviceId = k != null ? k.deviceId() : hex(node.pciDevice());
        Optional<String> productName = sysfsDevice == null ? Optional.empty()
                : host.readTrimmed(sysfsDevice + "/product_name").filter(s -> !s.isEmpty());
        String name = productName.or(() -> pciIds.deviceName(GpuVendor.AMD.pciId(), deviceId))
                .orElse(String.format(Locale.ROOT, "AMD GPU 0x%04x", deviceId)
                        + (k != null && k.gfxTargetVersion() > 0 ? " (" + k.gfxTarget() + ")" : ""));
        Long memory = sysfsDevice == null ? null : host.readTrimmed(sysfsDevice + "/mem_info_vram_total")
                .map(GpuDetector::mebibytes).orElse(null);
        String pci = k != null ? k.pciAddress().toString() : node.pciAddress();
        return new Gpu(card.index(), GpuVendor.AMD.inventoryName(), name, k == null ? null : k.uuid(), pci, driver,
                memory, node == null ? null : node.devicePath(), null);
    }

    private static Long mebibytes(String bytes) {
        try {
            return Long.parseLong(bytes.trim()) / (1024 * 1024);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int hex(String text) {
        if (text == null) {
            return 0;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            return Integer.parseInt(t.startsWith("0x") ? t.substring(2) : t, 16);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
