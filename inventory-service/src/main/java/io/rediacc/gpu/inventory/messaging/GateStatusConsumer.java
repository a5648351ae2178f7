package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.GateStatusIngestService;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import java.time.Instant;

/** Reads {@code gpu.gate-status.v1}: what each gate enforces now, and that it is alive. */
@ApplicationScoped
public class GateStatusConsumer {

    private static final Logger LOG = Logger.getLogger(GateStatusConsumer.class);

    private final GateStatusIngestService ingest;
    private final IngestMetrics metrics;

    public GateStatusConsumer(GateStatusIngestService ingest, IngestMetrics metrics) {
        this.ingest = ingest;
        this.metrics = metrics;
    }

    @Incoming(Topics.GATE_STATUS)
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
                var status = RecordDecoder.gateStatus(record.key(), record.value());
                applied = IngestRetry.withRetry(() -> ingest.apply(status, recordTime));
            }
        } catch (RejectedRecordException e) {
            LOG.warnf("skipping gate status record key=%s partition=%d offset=%d: %s",
                    record.key(), record.partition(), record.offset(), e.getMessage());
            metrics.rejected(Topics.GATE_STATUS);
            return Uni.createFrom().voidItem();
        }
        return applied
                .invoke(outcome -> metrics.ingested(Topics.GATE_STATUS, outcome))
                .onFailure().recoverWithItem(e -> {
                    LOG.errorf(e, "giving up on gate status %s (partition %d offset %d); the gate's next heartbeat replaces it",
                            record.key(), record.partition(), record.offset());
                    metrics.failed(Topics.GATE_STATUS);
                    return null;
                })
                .replaceWithVoid();
    }
}
