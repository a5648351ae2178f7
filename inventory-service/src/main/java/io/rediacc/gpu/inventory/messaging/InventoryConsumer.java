package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.rediacc.gpu.inventory.service.InventoryIngestService;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Reads {@code gpu.inventory.v1} (the channel is named after the topic, so the topic name lives
 * only in contracts). The consumer group starts at the earliest offset: a new deployment rebuilds
 * the read model from the compacted topic.
 */
@ApplicationScoped
public class InventoryConsumer {

    private final InventoryIngestService ingest;
    private final IngestMetrics metrics;

    public InventoryConsumer(InventoryIngestService ingest, IngestMetrics metrics) {
        this.ingest = ingest;
        this.metrics = metrics;
    }

    @Incoming(Topics.INVENTORY)
    public Uni<Void> consume(ConsumerRecord<String, byte[]> record) {
        return RecordIngest.ingest(record, Topics.INVENTORY, "inventory", metrics, ingest::remove, (r, recordTime) -> {
            var inventory = RecordDecoder.inventory(r.key(), r.value());
            // the record's bytes, not a re-serialisation: GET .../inventory answers what the machine wrote
            String raw = new String(r.value(), StandardCharsets.UTF_8);
            return IngestRetry.withRetry(() -> ingest.apply(inventory, raw, Instant.now()))
                    .invoke(outcome -> {
                        if (outcome == IngestOutcome.APPLIED || outcome == IngestOutcome.REFRESHED) {
                            metrics.inventoryApplied(inventory.generatedAt());
                        }
                    });
        });
    }
}
