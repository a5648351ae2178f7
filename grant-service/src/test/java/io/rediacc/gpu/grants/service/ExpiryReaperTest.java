package io.rediacc.gpu.grants.service;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** When the reaper looks next: at the next expiry, never later than the longest wait, and not at all without one. */
class ExpiryReaperTest {

    private static final Instant NOW = Instant.parse("2026-12-07T05:00:00Z");
    private static final Duration LONGEST = Duration.ofSeconds(60);

    @Test
    void noGrantThatExpiresSetsNoLook() {
        assertThat(ExpiryReaper.nextLook(NOW, Optional.empty(), LONGEST)).isEmpty();
    }

    @Test
    void theNextExpiryIsWhenItLooksJustPastItsMillisecond() {
        assertThat(ExpiryReaper.nextLook(NOW, Optional.of(NOW.plusSeconds(10)), LONGEST))
                .contains(Duration.ofSeconds(10).plusMillis(1));
    }

    @Test
    void aFarExpiryIsLookedAtAgainWithinTheLongestWaitForAWallClockStep() {
        assertThat(ExpiryReaper.nextLook(NOW, Optional.of(NOW.plus(Duration.ofHours(2))), LONGEST)).contains(LONGEST);
    }

    @Test
    void anExpiryAlreadyDueIsLookedAtAtOnce() {
        assertThat(ExpiryReaper.nextLook(NOW, Optional.of(NOW.minusSeconds(5)), LONGEST)).contains(Duration.ZERO);
        assertThat(ExpiryReaper.nextLook(NOW, Optional.of(NOW), LONGEST)).contains(Duration.ofMillis(1));
    }

    @Test
    void settingsThatWouldLookWithoutPauseOrNeverRevokeAreRefusedByName() {
        assertThat(ExpiryReaper.problems(LONGEST, 100)).isEmpty();
        assertThat(ExpiryReaper.problems(Duration.ZERO, 100))
                .containsExactly("grants.expiry-interval must be positive (is PT0S), e.g. 60s");
        assertThat(ExpiryReaper.problems(Duration.ofSeconds(-1), 0)).containsExactly(
                "grants.expiry-interval must be positive (is PT-1S), e.g. 60s",
                "grants.expiry-batch must be at least 1 (is 0)");
    }
}
