package io.rediacc.gpu.api.params;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueryFlagTest {

    @Test
    void onlyLowerCaseTrueAndFalseAreBooleansAndAbsentIsFalse() {
        assertThat(QueryFlag.parse("rekey", "true")).isTrue();
        assertThat(QueryFlag.parse("rekey", "false")).isFalse();
        assertThat(QueryFlag.parse("rekey", null)).isFalse();
    }

    @Test
    void everyOtherSpellingIsAnInvalidParameterNamingIt() {
        for (String raw : List.of("TRUE", "True", "1", "yes", "", " true", "true ", "false\n")) {
            assertThatThrownBy(() -> QueryFlag.parse("rekey", raw)).as(raw)
                    .isInstanceOfSatisfying(ApiProblem.class, p -> {
                        assertThat(p.type()).isEqualTo(ProblemType.INVALID_PARAMETER);
                        assertThat(p.detail()).startsWith("rekey=").contains("only true or false");
                        assertThat(p.extensions()).containsEntry("parameter", "rekey");
                    });
        }
    }
}
