package io.rediacc.gpu.grants.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediacc.gpu.api.metrics.LatencyHistograms;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;

/** The service's business metrics (Prometheus at {@code /q/metrics} on the management port). */
@ApplicationScoped
public class GrantMetrics {

    private final MeterRegistry registry;

    public GrantMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void granted() {
        changes("granted").increment();
    }

    void revoked() {
        changes("revoked").increment();
    }

    void refused(String reason) {
        Counter.builder("grants.refusals")
                .description("Grant requests refused by the rules (409/422), by error code")
                .tag("reason", reason)
                .register(registry)
                .increment();
    }

    /** How long a call waited for the machine's gates, by whether they enforced the change in time (false: 202). */
    public void enforcementWait(Duration waited, boolean enforced) {
        Timer.builder("grants.enforcement.wait")
                .description("Time a grant or revoke waited for the machine's gates to enforce it; enforced=false was answered 202 (not yet enforced)")
                .tag("enforced", Boolean.toString(enforced))
                .serviceLevelObjectives(LatencyHistograms.BUCKETS)
                .register(registry)
                .record(waited);
    }

    private Counter changes(String type) {
        return Counter.builder("grants.changes")
                .description("Grant changes committed, by type (granted, revoked)")
                .tag("type", type)
                .register(registry);
    }
}
