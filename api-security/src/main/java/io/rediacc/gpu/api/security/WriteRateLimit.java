package io.rediacc.gpu.api.security;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

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
 */
@Singleton
public class WriteRateLimit {

    private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS");

    private final RateLimitConfig config;
    private final CurrentIdentityAssociation identities;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    public WriteRateLimit(RateLimitConfig config, CurrentIdentityAssociation identities) {
        this.config = config;
        this.identities = identities;
    }

    @ServerRequestFilter
    public Uni<Response> limit(ContainerRequestContext request) {
        if (!config.enabled() || READS.contains(request.getMethod())) {
            return Uni.createFrom().nullItem();
        }
        return identities.getDeferredIdentity().map(this::check);
    }

    private Response check(SecurityIdentity identity) {
        if (identity == null || identity.isAnonymous()) {
            return null;
        }
        ConsumptionProbe probe = buckets.computeIfAbsent(identity.getPrincipal().getName(), name -> newBucket())
                .tryConsumeAndReturnRemaining(1);
        if (probe.isConsumed()) {
            return null;
        }
        long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(probe.getNanosToWaitForRefill() + 999_999_999L));
        throw new ApiProblem(ProblemType.RATE_LIMITED,
                identity.getPrincipal().getName() + " made more writes than api.rate-limit allows (" + config.burst()
                        + " at once, " + config.writes() + " per " + config.period() + "); nothing was changed",
                "retry after " + seconds + " s; a script that grants many devices can pace itself by Retry-After",
                Map.of("retryAfterSeconds", seconds));
    }

    private Bucket newBucket() {
        return Bucket.builder()
                .addLimit(limit -> limit.capacity(config.burst()).refillGreedy(config.writes(), config.period()))
                .build();
    }
}
