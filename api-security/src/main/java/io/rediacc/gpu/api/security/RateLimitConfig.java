package io.rediacc.gpu.api.security;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * The write rate limit ({@code api.rate-limit.*}): each principal's POST, PUT, PATCH and DELETE calls
 * to {@code /api} draw from a token bucket of its own; reads are not limited.
 */
@ConfigMapping(prefix = "api.rate-limit")
public interface RateLimitConfig {

    /** Off only where a bench measures the service itself ({@code false}); on by default. */
    @WithDefault("true")
    boolean enabled();

    /** Writes a principal may make at once, after a quiet spell. */
    @WithDefault("60")
    long burst();

    /** Writes a principal regains per {@link #period()}, spread evenly over it. */
    @WithDefault("600")
    long writes();

    /** The period of {@link #writes()}. */
    @WithDefault("1m")
    Duration period();
}
