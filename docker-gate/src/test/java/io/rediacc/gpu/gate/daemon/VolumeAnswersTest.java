package io.rediacc.gpu.gate.daemon;

import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** What the data plane may keep of the daemons' volume answers, and when it must ask again (issue 34). */
class VolumeAnswersTest {

    private static final byte[] PLAIN = "{\"Name\":\"v\",\"Driver\":\"local\"}".getBytes(StandardCharsets.UTF_8);
    private final VolumeAnswers answers = new VolumeAnswers();
    private final SocketEndpoint a = SocketEndpoint.unix(Path.of("/run/a.sock"));
    private final SocketEndpoint b = SocketEndpoint.unix(Path.of("/run/b.sock"));

    @Test
    void aDaemonsAnswersAreKeptPerDaemonAndCountedAsRead() {
        answers.streamLive(a);
        answers.streamLive(b);
        answers.keep(a, "v", PLAIN, answers.beforeLookup(a));

        assertThat(answers.answer(a, "v")).isEqualTo(PLAIN);
        assertThat(answers.answer(b, "v")).as("another daemon's volume of the same name is its own").isNull();
        assertThat(answers.answeredKept()).isEqualTo(1);
        assertThat(answers.answeredByDaemon()).isEqualTo(1);
    }

    @Test
    void withTwoStreamsOfOneDaemonTheOneLeftStillVouchesButWhatWasKeptIsForgotten() {
        answers.streamLive(a);
        answers.streamLive(a);
        answers.keep(a, "v", PLAIN, answers.beforeLookup(a));

        answers.streamGone(a);
        assertThat(answers.answer(a, "v")).isNull();
        answers.keep(a, "v", PLAIN, answers.beforeLookup(a));
        assertThat(answers.answer(a, "v")).isEqualTo(PLAIN);

        answers.streamGone(a);
        assertThat(answers.answer(a, "v")).isNull();
        assertThat(answers.beforeLookup(a)).isEqualTo(VolumeAnswers.DO_NOT_KEEP);
        answers.streamGone(a); // one too many (a stop after a failure) does not go below none
        answers.streamLive(a);
        assertThat(answers.beforeLookup(a)).isNotEqualTo(VolumeAnswers.DO_NOT_KEEP);
    }

    @Test
    void aStreamStartingAgainForgetsWhatWasReadBeforeIt() {
        answers.streamLive(a);
        long token = answers.beforeLookup(a);
        answers.streamGone(a);
        answers.streamLive(a);

        answers.keep(a, "v", PLAIN, token);

        assertThat(answers.answer(a, "v")).isNull();
    }

    @Test
    void largeAnswersAndAnswersPastTheBoundAreNotKept() {
        answers.streamLive(a);
        answers.keep(a, "big", new byte[VolumeAnswers.MAX_ANSWER_BYTES + 1], answers.beforeLookup(a));
        assertThat(answers.answer(a, "big")).isNull();

        for (int i = 0; i < VolumeAnswers.MAX_ANSWERS + 10; i++) {
            answers.keep(a, "v" + i, PLAIN, answers.beforeLookup(a));
        }
        assertThat(answers.size()).isEqualTo(VolumeAnswers.MAX_ANSWERS);
        assertThat(answers.answer(a, "v" + (VolumeAnswers.MAX_ANSWERS + 5))).isNull();

        answers.destroyed(a, "v0");
        answers.keep(a, "late", PLAIN, answers.beforeLookup(a));
        assertThat(answers.answer(a, "late")).as("room again after a destroy").isEqualTo(PLAIN);
        answers.forgetAll(a);
        assertThat(answers.size()).isZero();
    }
}
