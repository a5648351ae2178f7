package io.rediacc.gpu.api.security;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class TokenPrincipalCheckTest {

    private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    private static final Duration DAY = Duration.ofHours(24);

    @Test
    void aPrintableNameIsACaller() {
        assertThat(TokenPrincipalCheck.principalRefusal("alice@example.com")).isNull();
        assertThat(TokenPrincipalCheck.principalRefusal("józef")).isNull();
    }

    @Test
    void aNameWithALineBreakEscapeOrDirectionMarkIsRefused() {
        assertThat(TokenPrincipalCheck.principalRefusal("alice\nGRANT all to mallory")).contains("U+000A");
        assertThat(TokenPrincipalCheck.principalRefusal("alice\u001b[2J")).contains("U+001B");
        assertThat(TokenPrincipalCheck.principalRefusal("alice\u202Eecila")).contains("U+202E");
        assertThat(TokenPrincipalCheck.principalRefusal("alice\u2028x")).contains("U+2028");
    }

    @Test
    void anEmptyOrOverlongNameIsRefused() {
        assertThat(TokenPrincipalCheck.principalRefusal(" ")).contains("names no caller");
        assertThat(TokenPrincipalCheck.principalRefusal("a".repeat(129))).contains("129 characters");
        assertThat(TokenPrincipalCheck.principalRefusal("a".repeat(128))).isNull();
    }

    @Test
    void aTokenValidForLongerThanTheMaximumIsRefused() {
        long iat = NOW.getEpochSecond();
        assertThat(TokenPrincipalCheck.lifetimeRefusal(iat, iat + DAY.toSeconds(), NOW, DAY)).isNull();
        assertThat(TokenPrincipalCheck.lifetimeRefusal(iat, iat + DAY.toSeconds() + 1, NOW, DAY)).contains("at most PT24H");
        long year9999 = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        assertThat(TokenPrincipalCheck.lifetimeRefusal(iat, year9999, NOW, DAY)).contains("api.auth.jwt.max-lifetime");
    }

    @Test
    void aTokenWithoutIssuedAtOrIssuedInTheFutureIsRefused() {
        long exp = NOW.plusSeconds(60).getEpochSecond();
        assertThat(TokenPrincipalCheck.lifetimeRefusal(null, exp, NOW, DAY)).contains("no iat");
        // iat moved ahead to make a far exp look short-lived
        long later = NOW.plus(Duration.ofDays(3000)).getEpochSecond();
        assertThat(TokenPrincipalCheck.lifetimeRefusal(later, later + 60, NOW, DAY)).contains("issued in the future");
        assertThat(TokenPrincipalCheck.lifetimeRefusal(NOW.plusSeconds(30).getEpochSecond(), exp, NOW, DAY)).isNull();
    }
}
