package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.rediacc.gpu.inventory.service.InventoryIngestService;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Reads {@code gpu.inventory.v1} (the channel is named after the topic, so the topic name lives
 * only in contracts). The consumer group starts at the earliest offset: a new deployment rebuilds
 * the read model from the compacted topic.
 */
@ApplicationScoped
public class InventoryConsumer {

    private static final Logger LOG = Logger.getLogger(InventoryConsumer.class);

    private final InventoryIngestService ingest;
    private final IngestMetrics metrics;

    public InventoryConsumer(InventoryIngestService ingest, IngestMetrics metrics) {
        this.ingest = ingest;
        this.metrics = metrics;
    }

    @Incoming(Topics.INVENTORY)
    public Uni<Void> consume(ConsumerRecord<String, byte[]> record) {
        Instant recordTime = Instant.ofEpochMilli(record.timestamp());
        Uni<IngestOutcome> applied;
        try {
            if (record.value() == null) {
                if (record.key() == null) {
                    throw new RejectedRecordException("tombstone without a key");
                }
                applied = IngestRetry.withRetry(() -> ingest.remove(record.key(), recordTime));
            } else {
                var inventory = RecordDecoder.inventory(record.key(), record.value());
                // the record's bytes, not a re-serialisation: GET .../inventory answers what the machine wrote
                String raw = new String(record.value(), StandardCharsets.UTF_8);
                applied = IngestRetry.withRetry(() -> ingest.apply(inventory, raw, Instant.now()))
                        .invoke(outcome -> {
                            if (outcome == IngestOutcome.APPLIED || outcome == IngestOutcome.REFRESHED) {
                                metrics.inventoryApplied(inventory.generatedAt());
                            }
                        });
            }
        } catch (RejectedRecordException e) {
            return rejected(record, e);
        }
        return applied
                .invoke(outcome -> metrics.ingested(Topics.INVENTORY, outcome))
                .onFailure().recoverWithItem(e -> {
                    LOG.errorf(e, "giving up on inventory of %s (partition %d offset %d); the next heartbeat replaces it",
                            record.key(), record.partition(), record.offset());
                    metrics.failed(Topics.INVENTORY);
                    return null;
                })
                .replaceWithVoid();
    }

    private Uni<Void> rejected(ConsumerRecord<String, byte[]> record, RejectedRecordException e) {
        LOG.warnf("skipping inventory record key=%s partition=%d offset=%d: %s",
                record.key(), record.partition(), record.offset(), e.getMessage());
        metrics.rejected(Topics.INVENTORY);
        return Uni.createFrom().voidItem();
    }
}
