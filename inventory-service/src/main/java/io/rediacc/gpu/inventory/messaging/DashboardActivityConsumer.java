package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.dashboard.RecentActivityStore;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.rediacc.gpu.inventory.signing.RecordSignatures;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Reads what the dashboard shows beyond the read model: {@code gpu.grants.v1} (only each machine's
 * latest version, to compare the gates' applied versions with), {@code gpu.grant-events.v1} (a
 * repo's grant history) and {@code gpu.gate-decisions.v1} (refused Docker requests). Same handling
 * as the other consumers ({@link RecordIngest}), signatures first: grant snapshots and grant events
 * must be grant-service's, a gate decision its machine's (contracts' {@code RecordAuthority}); anything
 * else is dropped and counted, never shown (issue 31: an unsigned snapshot could pin "latest version"
 * at 9e18, an unsigned "granted" event write a repo's history). The tables are bounded by
 * {@link RecentActivityStore}.
 */
@ApplicationScoped
public class DashboardActivityConsumer {

    private final RecentActivityStore store;
    private final IngestMetrics metrics;
    private final InventoryConfig config;

    private final RecordSignatures signatures;

    public DashboardActivityConsumer(RecentActivityStore store, IngestMetrics metrics, InventoryConfig config,
                                     RecordSignatures signatures) {
        this.signatures = signatures;
        this.store = store;
        this.metrics = metrics;
        this.config = config;
    }

    @Incoming(Topics.GRANTS)
    public Uni<Void> grantSnapshot(ConsumerRecord<String, byte[]> record) {
        return signed(record, () -> RecordIngest.ingest(record, Topics.GRANTS, "grant snapshot", metrics,
                (machine, at) -> store.removeGrantVersion(machine),
                (r, at) -> {
                    var snapshot = ActivityRecordDecoder.grantSnapshot(r.key(), r.value());
                    return IngestRetry.withRetry(() -> store.grantVersion(snapshot));
                }));
    }

    @Incoming(Topics.GRANT_EVENTS)
    public Uni<Void> grantEvent(ConsumerRecord<String, byte[]> record) {
        return signed(record, () -> RecordIngest.ingest(record, Topics.GRANT_EVENTS, "grant event", metrics, DashboardActivityConsumer::nothingToRemove,
                (r, at) -> {
                    var event = ActivityRecordDecoder.grantEvent(r.key(), r.value(), at, config.maxClockSkew());
                    return IngestRetry.withRetry(() -> store.grantEvent(event));
                }));
    }

    @Incoming(Topics.GATE_DECISIONS)
    public Uni<Void> gateDecision(ConsumerRecord<String, byte[]> record) {
        return signed(record, () -> RecordIngest.ingest(record, Topics.GATE_DECISIONS, "gate decision", metrics, DashboardActivityConsumer::nothingToRemove,
                (r, at) -> {
                    var decision = ActivityRecordDecoder.gateDecision(r.key(), r.value(), at, config.maxClockSkew());
                    return IngestRetry.withRetry(() -> store.refusal(r.partition() + "/" + r.offset(), decision));
                }));
    }

    /** Reads the record only when its signature holds ({@link RecordIngest#signed}: else dropped and counted). */
    private Uni<Void> signed(ConsumerRecord<String, byte[]> record, java.util.function.Supplier<Uni<Void>> read) {
        return RecordIngest.signed(java.util.List.of(record), record.topic(), signatures, metrics)
                .chain(signed -> signed.isEmpty() ? Uni.createFrom().voidItem() : read.get());
    }

    /** The two audit topics are not compacted: a tombstone there means nothing and removes nothing. */
    private static Uni<IngestOutcome> nothingToRemove(String key, java.time.Instant at) {
        return Uni.createFrom().item(IngestOutcome.NOT_NEWER);
    }
}
