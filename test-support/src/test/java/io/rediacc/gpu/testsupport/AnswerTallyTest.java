package io.rediacc.gpu.testsupport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AnswerTallyTest {

    @Test
    void onlyShaped4xxAnd2xxPass() {
        AnswerTally tally = new AnswerTally();
        tally.check(200, "application/json", "{}", "ok");
        tally.check(400, "application/problem+json", "{\"type\":\"urn:x:e\",\"title\":\"t\",\"error\":\"e\",\"detail\":\"d\",\"hint\":\"h\",\"requestId\":\"r\"}", "shaped");
        tally.check(400, "application/problem+json", "{\"error\":\"e\",\"detail\":\"d\",\"hint\":\"h\"}", "pre-RFC 9457 shape");
        tally.check(414, null, "", "codec's empty 414");
        tally.check(400, "application/json", "{\"type\":\"urn:x:e\",\"title\":\"t\",\"error\":\"e\",\"detail\":\"d\",\"hint\":\"h\",\"requestId\":\"r\"}", "wrong type");
        tally.check(404, "application/problem+json", "{\"type\":\"urn:x:e\",\"title\":\"t\",\"error\":\"e\",\"detail\":\"d\",\"hint\":\" \",\"requestId\":\"r\"}", "blank hint");
        tally.check(400, "application/problem+json", "[1]", "not an object");
        tally.check(503, "application/json", "{\"error\":\"e\",\"detail\":\"d\",\"hint\":\"h\"}", "5xx");

        assertThat(tally.count(2)).isEqualTo(1);
        assertThat(tally.count(4)).isEqualTo(6);
        assertThat(tally.count(5)).isEqualTo(1);
        assertThat(tally.failures()).hasSize(6)
                .anyMatch(f -> f.contains("codec's empty 414")).anyMatch(f -> f.contains("wrong type"))
                .anyMatch(f -> f.contains("blank hint")).anyMatch(f -> f.contains("not an object")).anyMatch(f -> f.contains("pre-RFC 9457 shape"))
                .anyMatch(f -> f.startsWith("503 for 5xx"));
    }
}
