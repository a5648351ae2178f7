package io.rediacc.gpu.gate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.gate.grants.GrantStore;

/** The gate's Micrometer meters (exported by Prometheus as {@code gate_*}). */
public final class GateMetrics {

    private final MeterRegistry registry;
    private final Counter decisionsDropped;

    public GateMetrics(MeterRegistry registry, GrantStore store) {
        this.registry = registry;
        this.decisionsDropped = Counter.builder("gate.decisions.unpublished")
                .description("Refusals not published to gpu.gate-decisions.v1 (rate limit or full queue)")
                .register(registry);
        Gauge.builder("gate.grants.applied.version", store, s -> s.state().version())
                .description("Version of the grant snapshot this gate enforces")
                .register(registry);
        Gauge.builder("gate.grants.topic.version", store, GrantStore::topicVersion)
                .description("Highest version of this machine's grant snapshot seen on gpu.grants.v1; above gate_grants_applied_version while the gate lags")
                .register(registry);
        Gauge.builder("gate.grants.loaded", store, s -> s.loaded() ? 1 : 0)
                .description("1 once grants are loaded (from Kafka or from disk), else 0")
                .register(registry);
        Gauge.builder("gate.grants.synced", store, s -> s.state().caughtUp() ? 1 : 0)
                .description("1 once the grants topic was read to the end offsets seen at start")
                .register(registry);
    }

    public void refused(String rule, String repo) {
        Counter.builder("gate.refusals")
                .description("Docker requests the gate refused, by rule and repo")
                .tag("rule", rule == null ? "unknown" : rule)
                .tag("repo", repo)
                .register(registry)
                .increment();
    }

    public void decisionNotPublished() {
        decisionsDropped.increment();
    }
}
