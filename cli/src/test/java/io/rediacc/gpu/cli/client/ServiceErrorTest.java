package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.cli.failure.ExitCodes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** rdc reads the services' RFC 9457 problem answers (docs/ERRORS.md) for its messages and exit codes. */
class ServiceErrorTest {

    @Test
    void theCodeIsTheLastSegmentOfTheProblemType() {
        Reply reply = new Reply("grant-service", "http://x", 409, "{\"type\":\"https://rediacc.io/problems/ambiguous-repo\","
                + "\"title\":\"Ambiguous repo name\",\"status\":409,\"detail\":\"repo name r exists on several machines: a, b\","
                + "\"hint\":\"name the machine\"}");

        assertThat(reply.error().error()).isEqualTo("ambiguous-repo");
        assertThat(reply.error().line()).isEqualTo("ambiguous-repo: repo name r exists on several machines: a, b (hint: name the machine)");
        assertThat(reply.exitCode()).isEqualTo(ExitCodes.USAGE);
    }

    @Test
    void anAnswerWithoutATypeFallsBackToItsErrorField() {
        Reply reply = new Reply("inventory-service", "http://x", 404, "{\"error\":\"unknown-machine\",\"detail\":\"d\",\"hint\":\"h\"}");

        assertThat(reply.error().line()).isEqualTo("unknown-machine: d (hint: h)");
    }

    @Test
    void aTypeOfAnotherVocabularyIsNotTakenForACode() {
        Reply reply = new Reply("proxy", "http://x", 502, "{\"type\":\"about:blank\",\"detail\":\"bad gateway\"}");

        assertThat(reply.error().error()).isNull();
        assertThat(reply.error().line()).isEqualTo("bad gateway");
    }
}
