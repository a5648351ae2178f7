package io.rediacc.gpu.grants.messaging;

import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordBounds;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.grants.config.ChannelTopics;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.repository.GateStatusTable;
import io.rediacc.gpu.grants.service.GateRegistry;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import java.time.Instant;

/**
 * Reads {@code gpu.gate-status.v1} from its beginning in a consumer group of its own, so every
 * replica knows every gate: the in-memory {@link GateRegistry} answers the enforcement waits, the
 * {@code gate_status} table keeps the last status for people and tools that read the database.
 */
@ApplicationScoped
public class GateStatusConsumer {

    private static final Logger LOG = Logger.getLogger(GateStatusConsumer.class);

    private final GateRegistry registry;
    private final GateStatusTable table;
    private final GrantsConfig config;
    private final DroppedRecords dropped;
    private final SignedRecords signed;

    private final io.rediacc.gpu.grants.service.GatePositions positions;

    public GateStatusConsumer(GateRegistry registry, GateStatusTable table, GrantsConfig config, DroppedRecords dropped,
                              SignedRecords signed, io.rediacc.gpu.grants.service.GatePositions positions) {
        this.positions = positions;
        this.signed = signed;
        this.registry = registry;
        this.table = table;
        this.config = config;
        this.dropped = dropped;
    }

    @Incoming(ChannelTopics.GATE_STATUS)
    public Uni<Void> consume(ConsumerRecord<String, byte[]> record) {
        // whose word it is first: a gate speaks only for its own machine, a tombstone only for the removal path
        return signed.check(record).onFailure().recoverWithItem(e -> {
            LOG.warnf("cannot look up the key of %s (%s); the gate's next heartbeat is checked again", record.key(), e.getMessage());
            return new RecordRefusal(DropReason.UNREGISTERED, "key lookup failed: " + e.getMessage());
        }).chain(refusal -> positions.loaded().chain(() -> dropped.readUnlessRefused(record, refusal, this::read)));
    }

    private Uni<Void> read(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            RecordRefusal refused = RecordBounds.gateStatusTombstone(record.key());
            if (refused != null) {
                dropped.drop(record, refused);
            } else {
                forget(record.key());
            }
            return Uni.createFrom().voidItem();
        }
        var admitted = dropped.admit(record, GateStatus.class, "a gate status",
                (key, value, at, now) -> RecordBounds.gateStatus(key, value, at, now, config.input().maxClockSkew()));
        if (admitted == null) {
            return Uni.createFrom().voidItem();
        }
        GateStatus status = admitted.value();
        Instant publishedAt = admitted.publishedAt(); // signed
        var verdict = positions.judge(status, publishedAt);
        if (verdict == io.rediacc.gpu.grants.service.GatePositions.Verdict.REPLAY) {
            dropped.drop(record, new RecordRefusal(DropReason.REPLAY, "gate " + record.key()
                    + " status at position (" + status.epoch() + ", " + status.seq() + "), signed " + publishedAt
                    + ", is below the one already accepted: a replay, changes nothing"));
            return Uni.createFrom().voidItem();
        }
        if (!registry.record(status, publishedAt, config.input().maxGates())) {
            dropped.drop(record, RecordRefusal.invalid("the registry holds " + config.input().maxGates()
                    + " gates already (grants.input.max-gates); gate " + record.key() + " is not added"));
            return Uni.createFrom().voidItem();
        }
        if (verdict == io.rediacc.gpu.grants.service.GatePositions.Verdict.SAME) {
            return Uni.createFrom().voidItem(); // stored already
        }
        return table.save(status, publishedAt)
                .onFailure().recoverWithItem(e -> {
                    LOG.debugf("gate_status not stored (%s); the in-memory state is current", e.getMessage());
                    return null;
                });
    }

    private void forget(String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        if (slash > 0) {
            registry.forget(key.substring(0, slash), key.substring(slash + 1));
            positions.forget(key.substring(0, slash), key.substring(slash + 1));
        }
    }
}
