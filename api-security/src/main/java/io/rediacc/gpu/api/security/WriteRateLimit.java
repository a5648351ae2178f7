package io.rediacc.gpu.api.security;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Limits each principal's writes ({@link RateLimitConfig}): over its bucket a write is answered
 * {@code 429 rate-limited} with {@code Retry-After}, and nothing is changed. Per principal, so that one
 * runaway script does not slow the other operators; reads stay unlimited (they change nothing and the
 * services answer them from indexes). Bucket4j keeps the buckets: one per principal that has written,
 * which stays bounded because only authenticated principals reach it (configured tokens, or a JWT
 * issuer's subjects). A caller the filter cannot name (no token) is left to the 401 of the role check.
 * A principal named in {@code api.rate-limit.principals} gets its own limits, the others the defaults.
 * Buckets refill by the services' injected {@link Clock} (api-security's ServiceClock), so a test moves
 * time forward to see a refill instead of waiting for it.
 */
@Singleton
public class WriteRateLimit {

    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    // a Provider: REST filters are made at static init, before runtime config mappings exist
    private final Provider<RateLimitConfig> configs;
    private final CurrentIdentityAssociation identities;
    private final TimeMeter time;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    private volatile RateLimitConfig config;

    public WriteRateLimit(Provider<RateLimitConfig> configs, CurrentIdentityAssociation identities, Provider<Clock> clock) {
        this.configs = configs;
        this.identities = identities;
        this.time = new ClockTime(clock);
    }

    private RateLimitConfig config() {
        RateLimitConfig current = config;
        if (current == null) {
            current = configs.get();
            config = current;
        }
        return current;
    }

    /** Refuses to start with a limit Bucket4j would refuse at the first write (that write would answer 500). */
    void onStart(@Observes StartupEvent event) {
        RateLimitConfig config = config();
        if (config.enabled() && !config.problems().isEmpty()) {
            throw new IllegalStateException("api.rate-limit: " + String.join("; ", config.problems()));
        }
    }

    @ServerRequestFilter
    public Uni<Response> limit(ContainerRequestContext request) {
        RateLimitConfig config = config();
        if (!config.enabled() || READS.contains(request.getMethod())) {
            return Uni.createFrom().nullItem();
        }
        return identities.getDeferredIdentity().map(this::check);
    }

    private Response check(SecurityIdentity identity) {
        RateLimitConfig config = config();
        if (identity == null || identity.isAnonymous()) {
            return null;
        }
        String principal = identity.getPrincipal().getName();
        RateLimitConfig.Limit limit = config.limitOf(principal);
        ConsumptionProbe probe = buckets.computeIfAbsent(principal, name -> newBucket(limit))
                .tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed()) {
            return null;
        }
        long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(probe.getNanosToWaitForRefill() + 999_999_999L));
        throw new ApiProblem(ProblemType.RATE_LIMITED,
                principal + " made more writes than api.rate-limit allows (" + limit + "); nothing was changed",
                "retry after " + seconds + " s; a script that grants many devices can pace itself by Retry-After",
                Map.of("retryAfterSeconds", seconds));
    }

    private Bucket newBucket(RateLimitConfig.Limit limit) {
        return Bucket.builder()
                .addLimit(bandwidth -> bandwidth.capacity(limit.burst()).refillGreedy(limit.writes(), limit.period()))
                .withCustomTimePrecision(time)
                .build();
    }

    /** Bucket4j's time, read off the injected clock (looked up at the first write, as the config is). */
    private static final class ClockTime implements TimeMeter {
        private final Provider<Clock> clocks;
        private volatile Clock clock;

        ClockTime(Provider<Clock> clocks) {
            this.clocks = clocks;
        }

        @Override
        public long currentTimeNanos() {
            Clock current = clock;
            if (current == null) {
                current = clocks.get();
                clock = current;
            }
            Instant now = current.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        }

        @Override
        public boolean isWallClockBased() {
            return true;
        }
    }
}
