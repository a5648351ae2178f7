package io.rediacc.gpu.grants.service;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;

/** The service's business metrics (Prometheus at {@code /q/metrics}). */
@ApplicationScoped
public class GrantMetrics {

    private final MeterRegistry registry;

    public GrantMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void granted() {
        registry.counter("grants.changes", "type", "granted").increment();
    }

    void revoked() {
        registry.counter("grants.changes", "type", "revoked").increment();
    }

    void refused(String reason) {
        registry.counter("grants.refusals", "reason", reason).increment();
    }

    /** How long a call waited for the machine's gates, by whether they enforced the change in time. */
    public void enforcementWait(Duration waited, boolean enforced) {
        registry.timer("grants.enforcement.wait", "enforced", Boolean.toString(enforced)).record(waited);
    }
}
