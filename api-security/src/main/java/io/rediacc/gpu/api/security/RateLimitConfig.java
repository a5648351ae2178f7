package io.rediacc.gpu.api.security;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The write rate limit ({@code api.rate-limit.*}): each principal's POST, PUT, PATCH and DELETE calls
 * to {@code /api} draw from a token bucket of its own; reads are not limited. One principal may have
 * limits of its own ({@code api.rate-limit.principals."<name>".*}), e.g. a CI bot that grants many
 * devices in a burst; every other principal has the defaults.
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

    /**
     * Limits of named principals (the principal's name as the 429's detail and the audit print it: a
     * configured token's name, a JWT's {@code upn}/{@code preferred_username}/{@code sub}); what one leaves
     * out is the default's.
     */
    Map<String, PrincipalLimit> principals();

    /** One principal's own limits: each key left out takes the default's value. */
    interface PrincipalLimit {
        OptionalLong burst();

        OptionalLong writes();

        Optional<Duration> period();
    }

    /** The limit a principal's writes are under. */
    default Limit limitOf(String principal) {
        PrincipalLimit own = principals().get(principal);
        if (own == null) {
            return new Limit(burst(), writes(), period());
        }
        return new Limit(own.burst().orElse(burst()), own.writes().orElse(writes()), own.period().orElse(period()));
    }

    /** Why these limits cannot be used (Bucket4j refuses them at the first write, which would answer 500); empty when fine. */
    default List<String> problems() {
        List<String> problems = new ArrayList<>(new Limit(burst(), writes(), period()).problems("api.rate-limit"));
        // a principal's own keys only: a default it inherits is reported once, above
        principals().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> problems.addAll(
                new Limit(e.getValue().burst().orElse(1), e.getValue().writes().orElse(1),
                        e.getValue().period().orElse(Duration.ofSeconds(1)))
                        .problems("api.rate-limit.principals.\"" + e.getKey() + "\"")));
        return problems;
    }

    /** A bucket's shape: {@code burst} writes at once, refilled with {@code writes} per {@code period}. */
    record Limit(long burst, long writes, Duration period) {

        List<String> problems(String prefix) {
            List<String> problems = new ArrayList<>();
            if (burst < 1) {
                problems.add(prefix + ".burst must be at least 1 (is " + burst + ")");
            }
            if (writes < 1) {
                problems.add(prefix + ".writes must be at least 1 (is " + writes + ")");
            }
            if (period.isNegative() || period.isZero()) {
                problems.add(prefix + ".period must be positive (is " + period + ")");
            }
            return problems;
        }

        @Override
        public String toString() {
            return burst + " at once, " + writes + " per " + period;
        }
    }
}
