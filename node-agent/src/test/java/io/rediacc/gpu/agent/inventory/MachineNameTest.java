package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 31: machine names are lower case; a host name is case-insensitive, a configured name is the operator's word. */
class MachineNameTest {

    @TempDir
    Path root;

    @Test
    void anUpperCaseHostNameBecomesItsLowerCaseMachineName() throws Exception {
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/hostname"), "GPU-Host-7\n");

        assertThat(MachineName.resolve(Optional.empty(), Optional.empty(), new HostRoot(root))).isEqualTo("gpu-host-7");
    }

    @Test
    void anUpperCaseConfiguredNameIsRefusedWithTheLowerCaseSpelling() {
        assertThatThrownBy(() -> MachineName.resolve(Optional.of("RT-M2"), Optional.empty(), new HostRoot(root)))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("use \"rt-m2\"");
    }
}
