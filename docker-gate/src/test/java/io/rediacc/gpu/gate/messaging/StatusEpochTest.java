package io.rediacc.gpu.gate.messaging;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class StatusEpochTest {

    @TempDir
    Path dir;

    @Test
    void everyStartGetsAHigherEpochEvenWhenTheClockWentBack() {
        Clock now = Clock.fixed(Instant.parse("2026-12-05T10:00:00Z"), ZoneOffset.UTC);
        long first = StatusEpoch.next(dir, "gate", now);
        assertThat(first).isEqualTo(now.millis());

        Clock back = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
        long second = StatusEpoch.next(dir, "gate", back);
        assertThat(second).as("a replayed status of the first start stays below").isEqualTo(first + 1);
        assertThat(StatusEpoch.next(dir, "gate", now)).isEqualTo(first + 2);
        assertThat(StatusEpoch.next(dir, "other-gate", back)).as("per gate").isEqualTo(back.millis());
    }
}
