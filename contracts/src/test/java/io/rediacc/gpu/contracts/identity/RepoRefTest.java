package io.rediacc.gpu.contracts.identity;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RepoRefTest {

    @Test
    void aBareNameLeavesTheMachineOpen() {
        RepoRef ref = RepoRef.parse("gpu-a");
        assertThat(ref.name()).isEqualTo("gpu-a");
        assertThat(ref.machineName()).isEmpty();
        assertThat(ref.onMachine("m1")).isEqualTo(new RepoRef("gpu-a", "m1"));
    }

    @Test
    void nameAtMachineNamesBoth() {
        RepoRef ref = RepoRef.parse("gpu-a@wsl-gpu");
        assertThat(ref.name()).isEqualTo("gpu-a");
        assertThat(ref.machine()).isEqualTo("wsl-gpu");
        assertThat(ref.toString()).isEqualTo("gpu-a@wsl-gpu");
        assertThat(ref.onMachine("other")).isEqualTo(ref);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "@m1", "gpu-a@", "gpu-a@m1@m2", "gpu a", "gpu/a@m1", "-gpu", "gpu-a@m 1", "../etc"})
    void malformedReferencesAreRefusedWithAHint(String ref) {
        assertThatThrownBy(() -> RepoRef.parse(ref)).isInstanceOf(InvalidIdentifierException.class)
                .hasMessageMatching("(?s).*(repo|machine).*");
    }

    @Test
    void repoGuidsAreCanonicalisedToLowerCase() {
        assertThat(Identifiers.repoGuid("3F2B8C1E-9D4A-4E57-8F0A-2C6D7E9B1A43"))
                .isEqualTo("3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43");
        assertThatThrownBy(() -> Identifiers.repoGuid("not-a-guid")).hasMessageContaining("expected a UUID");
    }

    @Test
    void machineNamesFollowHostNameRules() {
        assertThat(Identifiers.isMachine("gpu-host-01.lab")).isTrue();
        assertThat(Identifiers.isMachine("-bad")).isFalse();
        assertThat(Identifiers.isMachine("a".repeat(64))).isFalse();
        assertThatThrownBy(() -> Identifiers.machine("bad name")).hasMessageContaining("machine name \"bad name\" is invalid");
    }
}
