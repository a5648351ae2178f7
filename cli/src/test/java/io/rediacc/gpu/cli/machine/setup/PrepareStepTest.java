package io.rediacc.gpu.cli.machine.setup;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PrepareStepTest {

    @Test
    void theMachineKeyIsReportedOnceNotAgainByPrepare() {
        assertThat(PrepareStep.relayed("machine key: unchanged - /etc/rediacc/gpu/machine-key.pem (key id ab12)")).isFalse();
        assertThat(PrepareStep.relayed("machine key: failed - /etc/rediacc/gpu/machine-key.pem is unreadable")).isTrue();
        assertThat(PrepareStep.relayed("node-agent setup: unchanged - 3 GPU(s)")).isTrue();
    }
}
