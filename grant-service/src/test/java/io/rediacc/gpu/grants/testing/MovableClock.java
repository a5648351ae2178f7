package io.rediacc.gpu.grants.testing;

import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The services' clock in tests: the system clock until a test moves it forward, so a rule that
 * depends on time (expiry, re-publishing) is tested by moving time, not by waiting for it. Any bean
 * of type {@link Clock} replaces api-security's default one. A test that moves it puts it back
 * ({@link #reset()}) before the next test runs.
 */
@Singleton
public class MovableClock extends Clock {

    private volatile Duration ahead = Duration.ZERO;

    public void advance(Duration by) {
        ahead = ahead.plus(by);
    }

    public void reset() {
        ahead = Duration.ZERO;
    }

    @Override
    public Instant instant() {
        return Instant.now().plus(ahead);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
