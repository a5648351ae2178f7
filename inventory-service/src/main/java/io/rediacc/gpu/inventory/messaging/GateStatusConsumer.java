package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.GateStatusIngestService;
import io.rediacc.gpu.inventory.signing.RecordSignatures;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

import java.util.List;

/** Reads {@code gpu.gate-status.v1}: what each gate enforces now, and that it is alive. */
@ApplicationScoped
public class GateStatusConsumer {

    private final GateStatusIngestService ingest;
    private final IngestMetrics metrics;

    private final InventoryConfig config;

    private final RecordSignatures signatures;

    public GateStatusConsumer(GateStatusIngestService ingest, IngestMetrics metrics, InventoryConfig config,
                              RecordSignatures signatures) {
        this.signatures = signatures;
        this.ingest = ingest;
        this.metrics = metrics;
        this.config = config;
    }

    @Incoming(Topics.GATE_STATUS)
    public Uni<Void> consume(ConsumerRecord<String, byte[]> record) {
        return RecordIngest.signed(List.of(record), Topics.GATE_STATUS, signatures, metrics)
                .chain(signed -> signed.isEmpty() ? Uni.createFrom().voidItem() : read(record));
    }

    private Uni<Void> read(ConsumerRecord<String, byte[]> record) {
        return RecordIngest.ingest(record, Topics.GATE_STATUS, "gate status", metrics, ingest::remove,
                (r, recordTime) -> {
                    var status = RecordDecoder.gateStatus(r.key(), r.value(), recordTime, config.maxClockSkew());
                    return IngestRetry.withRetry(() -> ingest.apply(status, recordTime));
                });
    }
}
