package io.rediacc.gpu.inventory.dashboard;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FixCommandTest {

    @Test
    void aMissingGrantsFixIsTheGrantCommandWithoutTheGatesNote() {
        assertThat(FixCommand.of("device nvidia.com/gpu=0 is not granted to repo gpu-a on machine m1; an operator can grant it"
                + " with: rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=0 (this container was created with that device)"))
                .isEqualTo("rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=0");
    }

    @Test
    void aRefusedSpellingsFixIsWhatToWriteInstead() {
        assertThat(FixCommand.of("--gpus all is refused: GPUs are attached only as granted CDI devices; write --device"
                + " nvidia.com/gpu=all instead (compose: devices: [nvidia.com/gpu=all])"))
                .isEqualTo("write --device nvidia.com/gpu=all instead (compose: devices: [nvidia.com/gpu=all])");
    }

    @Test
    void aMessageWithoutAFixHasNone() {
        assertThat(FixCommand.of("privileged mode is refused")).isNull();
        assertThat(FixCommand.of(null)).isNull();
    }
}
