package io.rediacc.gpu.gate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.gate.grants.GrantStore;
import io.rediacc.gpu.gate.grants.GrantsFeed;
import io.rediacc.gpu.gate.policy.VolumeAnswers;

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
        Gauge.builder("gate.grants.loaded", store, s -> s.loaded() ? 1 : 0)
                .description("1 once grants are loaded (from Kafka or from disk), else 0")
                .register(registry);
        Gauge.builder("gate.grants.synced", store, s -> s.state().caughtUp() ? 1 : 0)
                .description("1 once the grants topic was read to the end offsets seen at start")
                .register(registry);
    }

    /**
     * {@code gate_grants_feed_lag_records}: records of gpu.grants.v1 the gate has not read yet. A newer
     * snapshot is applied as soon as it is read, so a lag that stays above 0 is a gate behind the
     * latest grant version.
     */
    public void watch(GrantsFeed feed) {
        Gauge.builder("gate.grants.feed.lag.records", feed, GrantsFeed::lagRecords)
                .description("Records of gpu.grants.v1 this gate has not read yet (its consumer lag); above 0 for long: the gate lags the latest grant version")
                .register(registry);
    }

    /**
     * {@code gate_volume_reads_total{answer}}: the named volumes creates mount, read to judge how they are
     * backed: {@code kept} (an answer the daemon's event stream vouches for) or {@code daemon} (asked);
     * {@code gate_volume_answers_kept}: answers held now.
     */
    public void watch(VolumeAnswers answers) {
        FunctionCounter.builder("gate.volume.reads", answers, VolumeAnswers::answeredKept)
                .description("Named volumes read to judge a create: answered from a kept answer (answer=kept) or by the daemon (answer=daemon)")
                .tag("answer", "kept").register(registry);
        FunctionCounter.builder("gate.volume.reads", answers, VolumeAnswers::answeredByDaemon)
                .description("Named volumes read to judge a create: answered from a kept answer (answer=kept) or by the daemon (answer=daemon)")
                .tag("answer", "daemon").register(registry);
        Gauge.builder("gate.volume.answers.kept", answers, VolumeAnswers::size)
                .description("Daemons' volume answers held while their event streams vouch for them")
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
