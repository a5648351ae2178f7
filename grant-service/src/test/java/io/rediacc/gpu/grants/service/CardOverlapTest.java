package io.rediacc.gpu.grants.service;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CardOverlapTest {

    private static final Map<String, List<String>> NODES = Map.of(
            "nvidia.com/gpu=0", List.of("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"),
            "nvidia.com/gpu=1", List.of("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"),
            "nvidia.com/gpu=all", List.of("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"),
            "nvidia.com/gpu=GPU-4cf8db2d", List.of("/dev/nvidia0", "/dev/nvidiactl"),
            "rediacc.io/amd=gpu0", List.of("/dev/kfd", "/dev/dri/renderD128"),
            "rediacc.io/amd=gpu1", List.of("/dev/kfd", "/dev/dri/renderD129"),
            "rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"));

    @Test
    void allSharesEveryCard() {
        assertThat(CardOverlap.overlaps("nvidia.com/gpu=0", "nvidia.com/gpu=all", NODES)).isTrue();
        assertThat(CardOverlap.overlaps("nvidia.com/gpu=1", "nvidia.com/gpu=all", NODES)).isTrue();
    }

    @Test
    void indexAndUuidNamesOfOneCardOverlap() {
        assertThat(CardOverlap.overlaps("nvidia.com/gpu=0", "nvidia.com/gpu=GPU-4cf8db2d", NODES)).isTrue();
    }

    @Test
    void controlNodesDoNotMakeCardsShared() {
        assertThat(CardOverlap.overlaps("nvidia.com/gpu=0", "nvidia.com/gpu=1", NODES)).isFalse();
        assertThat(CardOverlap.overlaps("rediacc.io/amd=gpu0", "rediacc.io/amd=gpu1", NODES)).isFalse();
    }

    @Test
    void renderNodeOfAnAmdCardOverlapsTheDriDevice() {
        assertThat(CardOverlap.overlaps("rediacc.io/amd=gpu0", "rediacc.io/dri=renderD128", NODES)).isTrue();
    }

    @Test
    void sameNameOverlapsEvenWithoutKnownNodes() {
        assertThat(CardOverlap.overlaps("vendor.com/x=1", "vendor.com/x=1", Map.of())).isTrue();
    }

    /** Card index 0 is /dev/nvidia1 here: the minor is not the index. */
    private static final Map<String, List<String>> MIG = Map.of(
            "nvidia.com/gpu=0", List.of("/dev/nvidia1", "/dev/dri/card1", "/dev/dri/renderD129", "/dev/nvidiactl"),
            "nvidia.com/gpu=1", List.of("/dev/nvidia0", "/dev/dri/card0", "/dev/dri/renderD128", "/dev/nvidiactl"),
            "nvidia.com/gpu=all", List.of("/dev/nvidia0", "/dev/nvidia1", "/dev/dri/card0", "/dev/dri/card1",
                    "/dev/dri/renderD128", "/dev/dri/renderD129", "/dev/nvidiactl"),
            "nvidia.com/gpu=0:0", List.of("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap21", "/dev/nvidiactl"),
            "nvidia.com/gpu=0:1", List.of("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap30", "/dev/nvidiactl"),
            "rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"),
            "rediacc.io/dri=renderD129", List.of("/dev/dri/renderD129"));

    @Test
    void aMigSliceReachesItsParentCardAndEveryNameOfIt() {
        CardOverlap cards = CardOverlap.of(MIG);
        assertThat(cards.overlaps("nvidia.com/gpu=0:0", "nvidia.com/gpu=0")).isTrue();
        assertThat(cards.overlaps("nvidia.com/gpu=0:0", "nvidia.com/gpu=all")).isTrue();
        assertThat(cards.overlaps("nvidia.com/gpu=0:0", "nvidia.com/gpu=0:1")).isTrue();
        // the slice lists only /dev/nvidia1; nvidia.com/gpu=0 says renderD129 is the same card
        assertThat(cards.overlaps("nvidia.com/gpu=0:0", "rediacc.io/dri=renderD129")).isTrue();
        assertThat(cards.overlaps("nvidia.com/gpu=0:0", "nvidia.com/gpu=1")).isFalse();
        assertThat(cards.overlaps("nvidia.com/gpu=0:0", "rediacc.io/dri=renderD128")).isFalse();
    }

    @Test
    void allJoinsNoCardsTogether() {
        CardOverlap cards = CardOverlap.of(MIG);
        assertThat(cards.overlaps("nvidia.com/gpu=0", "nvidia.com/gpu=1")).isFalse();
        assertThat(cards.overlaps("rediacc.io/dri=renderD128", "rediacc.io/dri=renderD129")).isFalse();
    }

    @Test
    void aPciAddressMakesTheRenderNodeAndTheNvidiaNodeOneCardWhenNoSpecListsBoth() {
        Map<String, List<String>> nodes = Map.of(
                "nvidia.com/gpu=0", List.of("/dev/nvidia0", "/dev/nvidiactl"),
                "nvidia.com/gpu=1", List.of("/dev/nvidia1", "/dev/nvidiactl"),
                "rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"));
        assertThat(CardOverlap.of(nodes).overlaps("nvidia.com/gpu=0", "rediacc.io/dri=renderD128")).isFalse();
        CardOverlap cards = CardOverlap.of(nodes, Map.of(
                "nvidia.com/gpu=0", List.of("0000:18:00.0"), "nvidia.com/gpu=1", List.of("0000:28:00.0"),
                "rediacc.io/dri=renderD128", List.of("0000:18:00.0")));
        assertThat(cards.overlaps("nvidia.com/gpu=0", "rediacc.io/dri=renderD128")).isTrue();
        assertThat(cards.overlaps("nvidia.com/gpu=1", "rediacc.io/dri=renderD128")).isFalse();
    }
}
