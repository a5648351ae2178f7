package io.rediacc.gpu.gate.policy;

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
    void aKeptAnswerIsReadOnceAndItsReadCountsAgainstTheBounds() {
        answers.streamLive(a);
        answers.keep(a, "v", PLAIN, answers.beforeLookup(a));

        StoredVolume kept = answers.stored(a, "v");
        assertThat(kept.status()).isEqualTo(200);
        assertThat(kept.body()).isEqualTo(PLAIN);
        assertThat(kept.backing()).as("read when kept").isEqualTo(new VolumeBacking("local", null));
        assertThat(answers.stored(a, "v").backing()).as("the same read for every create").isSameAs(kept.backing());
        assertThat(answers.bytes()).isEqualTo(PLAIN.length + kept.backing().footprint()).isGreaterThan(PLAIN.length);

        byte[] twins = "{\"Driver\":\"local\",\"Driver\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        answers.keep(a, "twins", twins, answers.beforeLookup(a));
        assertThat(answers.stored(a, "twins").backing()).as("unreadable: judged, and refused, from its bytes each time").isNull();
        answers.forgetAll(a);
        assertThat(answers.bytes()).isZero();
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
    void anAnswerIsKeptAtMostMaxAgeWhateverTheEventsSay() {
        long[] now = {0};
        VolumeAnswers aging = new VolumeAnswers(() -> now[0]);
        aging.streamLive(a);
        aging.keep(a, "v", PLAIN, aging.beforeLookup(a));

        now[0] = VolumeAnswers.MAX_AGE.toNanos();
        assertThat(aging.answer(a, "v")).as("at its age").isEqualTo(PLAIN);
        now[0]++;
        assertThat(aging.answer(a, "v")).as("past it: asked again (a lost destroy event)").isNull();
        assertThat(aging.size()).isZero();
        aging.keep(a, "v", PLAIN, aging.beforeLookup(a));
        assertThat(aging.answer(a, "v")).as("kept again from the new read").isEqualTo(PLAIN);
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
    void largeAnswersAndAnswersPastADaemonsShareOrTheWholeBoundAreNotKept() {
        answers.streamLive(a);
        answers.keep(a, "big", new byte[VolumeAnswers.MAX_ANSWER_BYTES + 1], answers.beforeLookup(a));
        assertThat(answers.answer(a, "big")).isNull();

        byte[] answer = new byte[1024];
        int share = VolumeAnswers.MAX_BYTES_PER_DAEMON / answer.length;
        for (int i = 0; i < share + 10; i++) {
            answers.keep(a, "v" + i, answer, answers.beforeLookup(a));
        }
        assertThat(answers.size()).as("one daemon keeps its share only").isEqualTo(share);
        assertThat(answers.bytes()).isEqualTo(VolumeAnswers.MAX_BYTES_PER_DAEMON);
        assertThat(answers.answer(a, "v" + (share + 5))).isNull();
        answers.streamLive(b);
        answers.keep(b, "v0", answer, answers.beforeLookup(b));
        assertThat(answers.answer(b, "v0")).as("a full daemon costs another nothing").isEqualTo(answer);

        answers.destroyed(a, "v0");
        answers.keep(a, "late", answer, answers.beforeLookup(a));
        assertThat(answers.answer(a, "late")).as("room again after a destroy").isEqualTo(answer);
        answers.forgetAll(a);
        answers.forgetAll(b);
        assertThat(answers.size()).isZero();
        assertThat(answers.bytes()).isZero();

        int daemons = VolumeAnswers.MAX_BYTES / VolumeAnswers.MAX_BYTES_PER_DAEMON + 2;
        for (int k = 0; k < daemons; k++) {
            SocketEndpoint d = SocketEndpoint.unix(Path.of("/run/d" + k + ".sock"));
            answers.streamLive(d);
            for (int i = 0; i < share; i++) {
                answers.keep(d, "v" + i, answer, answers.beforeLookup(d));
            }
        }
        assertThat(answers.bytes()).as("all daemons together keep at most the whole bound").isEqualTo(VolumeAnswers.MAX_BYTES);
    }
}
