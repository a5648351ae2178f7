package io.rediacc.gpu.testsupport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AnswerTallyTest {

    private static final String PROBLEM = "{\"type\":\"https://rediacc.io/problems/e\",\"title\":\"E\",\"error\":\"e\",\"detail\":\"d\",\"hint\":\"h\",\"requestId\":\"r\"}";

    @Test
    void onlyShaped4xxAnd2xxPass() {
        AnswerTally tally = new AnswerTally();
        tally.check(200, "application/json", "{}", "ok");
        tally.check(400, "application/problem+json", PROBLEM, "shaped");
        tally.check(400, "application/json", "{\"error\":\"e\",\"detail\":\"d\",\"hint\":\"h\"}", "the shape before the problem model");
        tally.check(414, null, "", "codec's empty 414");
        tally.check(400, "text/plain", PROBLEM, "wrong type");
        tally.check(404, "application/problem+json", PROBLEM.replace("\"hint\":\"h\"", "\"hint\":\" \""), "blank hint");
        tally.check(400, "application/problem+json", "[1]", "not an object");
        tally.check(503, "application/problem+json", PROBLEM, "5xx");

        assertThat(tally.count(2)).isEqualTo(1);
        assertThat(tally.count(4)).isEqualTo(6);
        assertThat(tally.count(5)).isEqualTo(1);
        assertThat(tally.failures()).hasSize(6)
                .anyMatch(f -> f.contains("the shape before the problem model"))
                .anyMatch(f -> f.contains("codec's empty 414")).anyMatch(f -> f.contains("wrong type"))
                .anyMatch(f -> f.contains("blank hint")).anyMatch(f -> f.contains("not an object"))
                .anyMatch(f -> f.startsWith("503 for 5xx"));
    }
}
