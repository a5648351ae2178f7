package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.contracts.events.MachineInventory;

import java.util.List;

/**
 * Everything setup learns about the machine's GPUs, before it writes anything.
 *
 * @param platform           {@code local} or {@code wsl}
 * @param kfdPresent         {@code /dev/kfd} exists (AMD compute is possible)
 * @param persistencedSocket the nvidia-persistenced socket path, when it exists
 * @param notes              what could not be read, for the operator (never fatal)
 */
public record GpuDetection(String platform, List<NvidiaGpu> nvidiaGpus, List<RenderNode> renderNodes,
                           boolean kfdPresent, List<AmdCard> amdCards, List<MachineInventory.Gpu> gpus,
                           String persistencedSocket, List<String> notes) {

    public GpuDetection {
        nvidiaGpus = List.copyOf(nvidiaGpus);
        renderNodes = List.copyOf(renderNodes);
        amdCards = List.copyOf(amdCards);
        gpus = List.copyOf(gpus);
        notes = List.copyOf(notes);
    }

    public boolean hasNvidiaGpu() {
        return !nvidiaGpus.isEmpty();
    }

    public boolean wsl() {
        return MachineInventory.PLATFORM_WSL.equals(platform);
    }
}
