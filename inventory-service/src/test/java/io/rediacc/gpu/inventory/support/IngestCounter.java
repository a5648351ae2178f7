package io.rediacc.gpu.inventory.support;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * Waits for the consumers to have handled records that leave no trace by design (replays, older
 * records): the service's own {@code inventory_ingested_records_total} counter says when.
 */
public final class IngestCounter {

    private final MeterRegistry registry;
    private final String topic;
    private final String outcome;
    private final double start;

    private IngestCounter(MeterRegistry registry, String topic, String outcome) {
        this.registry = registry;
        this.topic = topic;
        this.outcome = outcome;
        this.start = value();
    }

    /** Starts counting records of {@code topic} with {@code outcome} (e.g. "not-newer") from now. */
    public static IngestCounter watch(MeterRegistry registry, String topic, String outcome) {
        return new IngestCounter(registry, topic, outcome);
    }

    public void awaitAtLeast(int records) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> value() - start >= records);
    }

    private double value() {
        Counter counter = registry.find("inventory.ingested.records").tags("topic", topic, "outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }
}
