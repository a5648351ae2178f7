package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WaitParameterTest {

    private static final Duration DEFAULT = Duration.ofSeconds(5);
    private static final Duration MAX = Duration.ofSeconds(60);

    @Test
    void acceptsZeroMillisecondsSecondsAndMinutes() {
        assertThat(WaitParameter.parse("0", DEFAULT, MAX)).isZero();
        assertThat(WaitParameter.parse("500ms", DEFAULT, MAX)).isEqualTo(Duration.ofMillis(500));
        assertThat(WaitParameter.parse("5s", DEFAULT, MAX)).isEqualTo(Duration.ofSeconds(5));
        assertThat(WaitParameter.parse("7", DEFAULT, MAX)).isEqualTo(Duration.ofSeconds(7));
        assertThat(WaitParameter.parse("1m", DEFAULT, MAX)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void absentMeansTheDefault() {
        assertThat(WaitParameter.parse(null, DEFAULT, MAX)).isEqualTo(DEFAULT);
        assertThat(WaitParameter.parse("", DEFAULT, MAX)).isEqualTo(DEFAULT);
    }

    @Test
    void longWaitsAreCutToTheMaximum() {
        assertThat(WaitParameter.parse("10m", DEFAULT, MAX)).isEqualTo(MAX);
    }

    @Test
    void anythingElseIsRefusedWithTheAcceptedForms() {
        for (String bad : new String[]{"-1s", "5 s", "PT5S", "1h", "soon", "1.5s"}) {
            assertThatThrownBy(() -> WaitParameter.parse(bad, DEFAULT, MAX))
                    .isInstanceOf(ApiProblem.class).hasMessageContaining("is not a duration");
        }
    }
}
