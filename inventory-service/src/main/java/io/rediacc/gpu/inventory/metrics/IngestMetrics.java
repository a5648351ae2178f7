package io.rediacc.gpu.inventory.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the consumers did: records per topic and outcome ({@code inventory_ingested_records_total})
 * and the ingest lag, {@code inventory_ingest_lag_seconds} = now − generatedAt of the last
 * inventory applied (NaN before the first one).
 */
@ApplicationScoped
public class IngestMetrics {

    private final MeterRegistry registry;
    private final AtomicReference<Instant> lastGeneratedAt = new AtomicReference<>();

    public IngestMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("inventory.ingest.lag.seconds", this, IngestMetrics::lagSeconds)
                .description("Seconds between now and the generatedAt of the last inventory applied")
                .register(registry);
    }

    public void inventoryApplied(Instant generatedAt) {
        lastGeneratedAt.accumulateAndGet(generatedAt, (held, next) -> held == null || next.isAfter(held) ? next : held);
    }

    public void ingested(String topic, IngestOutcome outcome) {
        counter(topic, outcome.label()).increment();
    }

    /** A record that can never be applied (skipped). */
    public void rejected(String topic) {
        counter(topic, "rejected").increment();
    }

    /**
     * A record dropped before it was read or applied, by reason (unsigned, foreign-key, future-time...):
     * {@code inventory.input.dropped}; also counted as {@code rejected}. Logged once a minute per reason and
     * machine (the line says how many more were dropped), so a flood of forged records cannot flood the log.
     */
    public void dropped(String topic, io.rediacc.gpu.contracts.events.DropReason reason, String key, String partitionOffset,
                        String why) {
        rejected(topic);
        Counter.builder("inventory.input.dropped").description("Records dropped before they were applied, by reason")
                .tag("topic", topic).tag("reason", reason.tag()).register(registry).increment();
        String slot = reason.tag() + "|" + (key == null ? "?" : key.split("/", 2)[0]);
        if (lastLogged.size() > 10_000) {
            lastLogged.clear(); // forged keys must not grow this map without bound
        }
        long now = System.nanoTime();
        long[] last = lastLogged.get(slot);
        if (last != null && now - last[0] < 60_000_000_000L) {
            last[1]++;
            return;
        }
        lastLogged.put(slot, new long[]{now, 0});
        LOG.warnf("dropping %s record %s (%s)%s: %s", topic, partitionOffset, reason.tag(),
                last == null || last[1] == 0 ? "" : " (and " + last[1] + " more like it in the last minute)", why);
    }

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(IngestMetrics.class);
    private final java.util.Map<String, long[]> lastLogged = new java.util.concurrent.ConcurrentHashMap<>();

    /** A record given up after retries (the next heartbeat replaces it). */
    public void failed(String topic) {
        counter(topic, "failed").increment();
    }

    double lagSeconds() {
        Instant last = lastGeneratedAt.get();
        return last == null ? Double.NaN : Duration.between(last, Instant.now()).toMillis() / 1000.0;
    }

    /** Kept once registered: a registration looked up again builds its id and tags for every record (issue 34's profile). */
    private final java.util.Map<String, Counter> counters = new java.util.concurrent.ConcurrentHashMap<>();

    private Counter counter(String topic, String outcome) {
        // bounded: the topics read and the outcomes are fixed sets
        return counters.computeIfAbsent(topic + '|' + outcome, k -> Counter.builder("inventory.ingested.records")
                .description("Records read from the inventory and gate-status topics, by outcome")
                .tag("topic", topic)
                .tag("outcome", outcome)
                .register(registry));
    }
}
