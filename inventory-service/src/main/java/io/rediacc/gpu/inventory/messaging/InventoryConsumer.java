package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.signing.RecordSignatures;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.rediacc.gpu.inventory.service.InventoryChange;
import io.rediacc.gpu.inventory.service.InventoryIngestService;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code gpu.inventory.v1} (the channel is named after the topic, so the topic name lives
 * only in contracts) a poll at a time (batch mode, see application.properties) and applies each
 * poll in one transaction. The batch is acknowledged — and its offsets committed — only once that
 * transaction has committed. The consumer group starts at the earliest
 * offset: a new deployment rebuilds the read model from the compacted topic.
 */
@ApplicationScoped
public class InventoryConsumer {

    private static final Logger LOG = Logger.getLogger(InventoryConsumer.class);
    private static final String TOPIC = Topics.INVENTORY;

    private final InventoryIngestService ingest;
    private final IngestMetrics metrics;

    private final InventoryConfig config;
    private final RecordSignatures signatures;
    private final PollWorkers workers;

    public InventoryConsumer(InventoryIngestService ingest, IngestMetrics metrics, InventoryConfig config,
                             RecordSignatures signatures, PollWorkers workers) {
        this.signatures = signatures;
        this.workers = workers;
        this.ingest = ingest;
        this.metrics = metrics;
        this.config = config;
    }

    @Incoming(Topics.INVENTORY)
    public Uni<Void> consume(ConsumerRecords<String, byte[]> records) {
        // partition by partition, each in offset order: a machine's records keep their order
        List<ConsumerRecord<String, byte[]>> inOrder = new ArrayList<>(records.count());
        records.forEach(inOrder::add);
        return ingest(inOrder);
    }

    /** Applies one poll's records, each machine's in offset order; completes once they are committed to the database. */
    public Uni<Void> ingest(List<ConsumerRecord<String, byte[]>> records) {
        return RecordIngest.signed(records, TOPIC, signatures, metrics, workers)
                .chain(signed -> workers.map(signed, this::decoded).chain(decoded -> ingestDecoded(signed, decoded)));
    }

    /** A record decoded, or why it cannot be read. */
    private record Decoded(InventoryChange change, RejectedRecordException rejected) {
    }

    private Decoded decoded(ConsumerRecord<String, byte[]> record) {
        try {
            return new Decoded(decode(record), null);
        } catch (RejectedRecordException e) {
            return new Decoded(null, e);
        }
    }

    private Uni<Void> ingestDecoded(List<ConsumerRecord<String, byte[]>> records, List<Decoded> decoded) {
        Instant receivedAt = Instant.now();
        List<InventoryChange> changes = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            Decoded d = decoded.get(i);
            if (d.rejected() == null) {
                changes.add(d.change());
            } else {
                RecordIngest.dropped(metrics, TOPIC, records.get(i), d.rejected().refusal().reason(), d.rejected().getMessage());
            }
        }
        if (changes.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return IngestRetry.withRetry(() -> ingest.apply(changes, receivedAt))
                .invoke(outcomes -> counted(changes, outcomes))
                .replaceWithVoid()
                .onFailure().recoverWithUni(e -> oneMachineAtATime(changes, receivedAt, e));
    }

    private InventoryChange decode(ConsumerRecord<String, byte[]> record) {
        Instant recordTime = RecordIngest.recordTime(record);
        if (record.value() == null) {
            if (record.key() == null) {
                throw new RejectedRecordException("tombstone without a key");
            }
            return InventoryChange.tombstone(record.key(), recordTime, record.partition(), record.offset());
        }
        var inventory = RecordDecoder.inventory(record.key(), record.value(), recordTime, config.maxClockSkew());
        // the record's bytes, not a re-serialisation: GET .../inventory answers what the machine wrote
        String raw = new String(record.value(), StandardCharsets.UTF_8);
        return InventoryChange.of(inventory, raw, recordTime, record.partition(), record.offset());
    }

    /**
     * A batch that still fails after the retries is split by machine, each tried once, so that one
     * machine's record the database refuses costs only that machine's records; the ones given up
     * are logged and counted, and the producer's next heartbeat replaces them.
     */
    private Uni<Void> oneMachineAtATime(List<InventoryChange> changes, Instant receivedAt, Throwable batchFailure) {
        Map<String, List<InventoryChange>> byMachine = new LinkedHashMap<>();
        changes.forEach(c -> byMachine.computeIfAbsent(c.machine(), m -> new ArrayList<>()).add(c));
        if (byMachine.size() == 1) {
            gaveUp(changes, batchFailure);
            return Uni.createFrom().voidItem();
        }
        LOG.warnf(batchFailure, "a batch of %d inventory records failed after retries; applying it one machine at a time",
                changes.size());
        return Multi.createFrom().iterable(byMachine.values())
                .onItem().transformToUniAndConcatenate(machine -> ingest.apply(machine, receivedAt)
                        .invoke(outcomes -> counted(machine, outcomes))
                        .replaceWithVoid()
                        .onFailure().recoverWithItem(e -> {
                            gaveUp(machine, e);
                            return null;
                        }))
                .collect().last();
    }

    private void counted(List<InventoryChange> changes, List<IngestOutcome> outcomes) {
        for (int i = 0; i < changes.size(); i++) {
            IngestOutcome outcome = outcomes.get(i);
            metrics.ingested(TOPIC, outcome);
            InventoryChange change = changes.get(i);
            if (outcome == IngestOutcome.APPLIED || outcome == IngestOutcome.REFRESHED) {
                metrics.inventoryApplied(change.inventory().generatedAt());
            }
        }
    }

    private void gaveUp(List<InventoryChange> changes, Throwable e) {
        LOG.errorf(e, "giving up on %d inventory record(s) of %s after retries", changes.size(), changes.get(0).machine());
        for (InventoryChange c : changes) {
            LOG.errorf("giving up on inventory %s (partition %d offset %d); the next heartbeat replaces it",
                    c.machine(), c.partition(), c.offset());
            metrics.failed(TOPIC);
        }
    }
}
