package io.rediacc.gpu.contracts.identity;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IdentifiersTest {

    @Test
    void aMachineNameWithUpperCaseIsRefusedWithItsLowerCaseSpelling() {
        assertThatThrownBy(() -> Identifiers.machine("RT-M2"))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessageContaining("\"RT-M2\" has upper-case letters")
                .hasMessageContaining("use \"rt-m2\"");
        assertThat(Identifiers.isMachine("RT-M2")).isFalse();
        assertThat(Identifiers.machine("rt-m2")).isEqualTo("rt-m2");
    }

    @Test
    void anInvalidMachineNameStillSaysWhatIsAllowed() {
        assertThatThrownBy(() -> Identifiers.machine("RT M2")).hasMessageContaining("is invalid: use 1-63 lower-case letters");
    }

    @Test
    void aRepoReferenceNamesItsMachineInLowerCase() {
        assertThatThrownBy(() -> RepoRef.parse("train@RT-M2")).hasMessageContaining("use \"rt-m2\"");
    }

    @Test
    void gateIdsKeepEitherCase() {
        assertThat(Identifiers.isGateId("Gate-A")).isTrue();
        assertThatThrownBy(() -> Identifiers.gateId("gate/a")).hasMessageContaining("gate id \"gate/a\" is invalid");
    }
}
