package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MIG slices reserve their parent card (issue 33: "every CDI name maps to the cards it reaches … MIG parents"):
 * {@code nvidia-ctk cdi generate} names a slice {@code <gpu>:<mig>} and {@code MIG-<uuid>}, and an exclusive grant of
 * a slice must conflict with the whole card, its other names and {@code all}, as DRA's shared counters make them.
 */
class DeviceCardsTest {

    private static final String CARD0 = "0000:18:00.0";
    private static final String CARD1 = "0000:28:00.0";

    private static Gpu nvidia(int index, String uuid, String pci) {
        return new Gpu(index, "nvidia", "NVIDIA H100 80GB HBM3", uuid, pci, "550.127.05", 81559L, null, "Enabled");
    }

    /** A machine whose driver reports card 0 as /dev/nvidia0 and card 1 as /dev/nvidia1. */
    private static DeviceCards machine(Path root) throws IOException {
        for (String[] card : new String[][] {{CARD0, "0"}, {CARD1, "1"}}) {
            Path info = root.resolve("proc/driver/nvidia/gpus").resolve(card[0]).resolve("information");
            Files.createDirectories(info.getParent());
            Files.writeString(info, "Model: \t\t NVIDIA H100 80GB HBM3\nDevice Minor: \t " + card[1] + "\n");
        }
        return DeviceCards.read(new HostRoot(root), List.of(
                nvidia(0, "GPU-7fc596a7-39e2-3baf-9b3d-888082e87057", CARD0),
                nvidia(1, "GPU-4a99505f-3e4d-385e-a35f-88a51d075281", CARD1)));
    }

    @Test
    void aMigSliceByIndexReachesItsParentCardWhateverNodesItsSpecLists(@TempDir Path root) throws IOException {
        DeviceCards cards = machine(root);

        assertThat(cards.cardsOf("nvidia.com/gpu=1:0", List.of())).containsExactly(CARD1);
        assertThat(cards.cardsOf("nvidia.com/gpu=0:3", List.of("/dev/nvidia-caps/nvidia-cap21"))).containsExactly(CARD0);
    }

    @Test
    void aMigSliceByUuidReachesItsParentCardThroughTheParentsNode(@TempDir Path root) throws IOException {
        DeviceCards cards = machine(root);

        // nvidia-ctk lists the parent's /dev/nvidiaN and the slice's capability nodes for a MIG-<uuid> device
        assertThat(cards.cardsOf("nvidia.com/gpu=MIG-0b2c5f3e-1d4a-5b6c-8d7e-9f0a1b2c3d4e",
                List.of("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap30", "/dev/nvidiactl"))).containsExactly(CARD1);
        assertThat(cards.cardsOf("nvidia.com/gpu=all", List.of())).containsExactly(CARD0, CARD1);
    }
}
