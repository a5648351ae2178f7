package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.smallrye.mutiny.Uni;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

import java.time.Instant;

/**
 * What every consumer of this service does with a record: a tombstone removes its key, a value is
 * decoded and applied (both with retries), a record that cannot be read is skipped and counted, and
 * a record that still fails after the retries is logged and counted — the producer's next
 * heartbeat replaces it, so the consumer never stops on one record.
 */
final class RecordIngest {

    private static final Logger LOG = Logger.getLogger(RecordIngest.class);

    /** Decodes and applies a record's value; throws {@link RejectedRecordException} when it cannot be read. */
    interface Apply {
        Uni<IngestOutcome> apply(ConsumerRecord<String, byte[]> record, Instant recordTime);
    }

    /** Removes what a tombstone's key names. */
    interface Remove {
        Uni<IngestOutcome> remove(String key, Instant recordTime);
    }

    private RecordIngest() {
    }

    /** {@code what} names the record in logs, e.g. "inventory" or "gate status". */
    static Uni<Void> ingest(ConsumerRecord<String, byte[]> record, String topic, String what, IngestMetrics metrics,
                            Remove remove, Apply apply) {
        Instant recordTime = Instant.ofEpochMilli(record.timestamp());
        Uni<IngestOutcome> applied;
        try {
            if (record.value() == null) {
                if (record.key() == null) {
                    throw new RejectedRecordException("tombstone without a key");
                }
                applied = IngestRetry.withRetry(() -> remove.remove(record.key(), recordTime));
            } else {
                applied = apply.apply(record, recordTime);
            }
        } catch (RejectedRecordException e) {
            metrics.dropped(topic, io.rediacc.gpu.contracts.events.RecordBounds.reasonOf(e.getMessage()), record.key(),
                    record.partition() + "@" + record.offset(), what + ": " + e.getMessage());
            return Uni.createFrom().voidItem();
        }
        return applied
                .invoke(outcome -> metrics.ingested(topic, outcome))
                .onFailure().recoverWithItem(e -> {
                    LOG.errorf(e, "giving up on %s %s (partition %d offset %d); the next heartbeat replaces it",
                            what, record.key(), record.partition(), record.offset());
                    metrics.failed(topic);
                    return null;
                })
                .replaceWithVoid();
    }
}
