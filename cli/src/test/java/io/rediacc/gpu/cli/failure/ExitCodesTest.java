package io.rediacc.gpu.cli.failure;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ExitCodesTest {

    @Test
    void eachAnswerHasItsExitCode() {
        assertThat(ExitCodes.forStatus(200)).isEqualTo(0);
        assertThat(ExitCodes.forStatus(201)).isEqualTo(0);
        assertThat(ExitCodes.forStatus(202)).isEqualTo(5);
        assertThat(ExitCodes.forStatus(400)).isEqualTo(2);
        assertThat(ExitCodes.forStatus(401)).isEqualTo(1);
        assertThat(ExitCodes.forStatus(404)).isEqualTo(3);
        assertThat(ExitCodes.forStatus(409)).isEqualTo(4);
        assertThat(ExitCodes.forStatus(422)).isEqualTo(3);
        assertThat(ExitCodes.forStatus(500)).isEqualTo(1);
        assertThat(ExitCodes.forStatus(503)).isEqualTo(1);
    }

    @Test
    void aConflictIsOnlyAConflictWhenAnExclusiveGrantStandsInTheWay() {
        assertThat(ExitCodes.forError(409, "exclusive-conflict")).isEqualTo(4);
        assertThat(ExitCodes.forError(409, "ambiguous-repo")).isEqualTo(2);
        assertThat(ExitCodes.forError(409, "no-inventory")).isEqualTo(3);
    }

    @Test
    void theMostSevereOutcomeWins() {
        assertThat(ExitCodes.worst(0, 5)).isEqualTo(5);
        assertThat(ExitCodes.worst(5, 3)).isEqualTo(3);
        assertThat(ExitCodes.worst(3, 4)).isEqualTo(4);
        assertThat(ExitCodes.worst(4, 2)).isEqualTo(2);
        assertThat(ExitCodes.worst(2, 1)).isEqualTo(1);
        assertThat(ExitCodes.worst(1, 0)).isEqualTo(1);
    }
}
