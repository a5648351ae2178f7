package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

class MachineKeyStepTest {

    @Test
    void prepareWritesTheMachineKeyOnceAndNeverReplacesIt(@TempDir Path root) throws Exception {
        HostRoot host = new HostRoot(root);
        Step first = MachinePrepare.machineKey(host);
        assertThat(first.outcome()).isEqualTo(Step.Outcome.changed);
        assertThat(first.detail()).contains(KeyPairFile.MACHINE_KEY).contains("key id");
        Path pair = host.path(KeyPairFile.MACHINE_KEY);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pair))).isEqualTo("rw-r-----");
        String before = Files.readString(pair);

        Step second = MachinePrepare.machineKey(host);
        assertThat(second.outcome()).isEqualTo(Step.Outcome.unchanged);
        assertThat(Files.readString(pair)).isEqualTo(before);
        assertThat(host.path(KeyPairFile.MACHINE_PUBLIC_KEY)).exists();
    }

    @Test
    void anUnreadableKeyFileFailsTheStepWithWhatToDo(@TempDir Path root) throws Exception {
        HostRoot host = new HostRoot(root);
        Files.createDirectories(host.path(KeyPairFile.MACHINE_KEY).getParent());
        Files.writeString(host.path(KeyPairFile.MACHINE_KEY), "garbage");
        Step step = MachinePrepare.machineKey(host);
        assertThat(step.outcome()).isEqualTo(Step.Outcome.failed);
        assertThat(step.detail()).contains("PEM");
    }
}
