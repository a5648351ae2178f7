package io.rediacc.gpu.contracts.text;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ClosestNameTest {

    private static final List<String> NAMES = List.of("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all",
            "rediacc.io/dri=renderD128");

    @Test
    void letterOForDigitZeroIsATypo() {
        assertThat(ClosestName.among("nvidia.com/gpu=O", NAMES)).contains("nvidia.com/gpu=0");
    }

    @Test
    void wrongCaseIsATypo() {
        assertThat(ClosestName.among("NVIDIA.com/gpu=all", NAMES)).contains("nvidia.com/gpu=all");
    }

    @Test
    void aDifferentDeviceIsNoTypo() {
        assertThat(ClosestName.among("example.com/fpga=7", NAMES)).isEmpty();
        assertThat(ClosestName.among("nvidia.com/gpu=0", List.of())).isEmpty();
    }

    @Test
    void renderNodeOffByADigitIsATypo() {
        assertThat(ClosestName.among("rediacc.io/dri=renderD129", NAMES)).contains("rediacc.io/dri=renderD128");
    }
}
