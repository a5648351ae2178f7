package io.rediacc.gpu.gate.grants;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.GrantSnapshotCopy;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.contracts.signing.SignedRecord;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jboss.logging.Logger;

import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;

/**
 * Only grant-service grants: a snapshot is applied only when grant-service's key signed it (topic, key,
 * {@code ce_time}, value) and its {@code ce_time} is at most {@link #SKEW} ahead. Anyone else who can write
 * to {@code gpu.grants.v1} (a broker without ACLs) could otherwise grant devices, or freeze the gate with
 * version Long.MAX. A refused snapshot is counted in {@code gate_grants_dropped_total{reason}} and logged
 * (once a minute per reason).
 */
public final class SignedSnapshots {

    private static final Logger LOG = Logger.getLogger(SignedSnapshots.class);
    static final Duration SKEW = GrantSnapshotCopy.CLOCK_SKEW;

    private final SignerKeys keys;
    private final RecordVerifier verifier = new RecordVerifier(SKEW);
    private final MeterRegistry metrics;
    private final java.util.Map<String, Long> lastLogged = new java.util.concurrent.ConcurrentHashMap<>();

    public SignedSnapshots(PublicKey grantService, MeterRegistry metrics) {
        this.keys = SignerKeys.grantServiceOnly(grantService);
        this.metrics = metrics;
    }

    /** Whether the record may be applied; a refusal is counted and logged here. */
    boolean trusted(ConsumerRecord<String, byte[]> record) {
        // contracts' rule picks the signer: only grant-service's key (the one this gate holds) signs gpu.grants.v1
        RecordRefusal refusal = verifier.verify(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value(), keys, Instant.now());
        if (refusal == null) {
            return true;
        }
        dropped(record, refusal.reason(), refusal.detail());
        return false;
    }

    /** The signed parts of a record {@link #trusted} accepted, as the state file keeps them. */
    static SignedRecord signedParts(ConsumerRecord<String, byte[]> record) {
        return SignedRecord.of(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value());
    }

    /** grant-service's key, which the copy on disk is verified with too ({@link GrantSnapshotCopy#load}). */
    SignerKeys keys() {
        return keys;
    }

    /**
     * Counts and logs a signed snapshot at or below the version this gate holds that is not the same snapshot
     * (reason {@code replay}): a replayed old record, a topic rolled back, or compaction leaving a replay as the
     * newest offset. The gate keeps what it holds.
     */
    void replayed(String detail) {
        count(DropReason.REPLAY);
        if (shouldLog(DropReason.REPLAY)) {
            LOG.errorf("REPLAY OR ROLLBACK on %s: %s", Topics.GRANTS, detail);
        }
    }

    /**
     * Counts and logs a snapshot the gate does not apply: refused by its signature, or signed but not
     * strict JSON of a snapshot ({@link io.rediacc.gpu.contracts.json.StrictJson}, reason {@code invalid}).
     */
    void dropped(ConsumerRecord<String, byte[]> record, DropReason reason, String detail) {
        count(reason);
        if (shouldLog(reason)) {
            LOG.errorf("NOT applying grant snapshot at %s-%d@%d (%s): %s", record.topic(), record.partition(),
                    record.offset(), reason.tag(), detail);
        }
    }

    private void count(DropReason reason) {
        io.micrometer.core.instrument.Counter.builder("gate.grants.dropped")
                .description("Grant snapshots from gpu.grants.v1 the gate did not apply: unsigned, not signed by grant-service's key, dated ahead, not strict JSON, or a replay/rollback below the version held; by reason")
                .tag("reason", reason.tag())
                .register(metrics)
                .increment();
    }

    private boolean shouldLog(DropReason reason) {
        long now = System.nanoTime();
        Long last = lastLogged.get(reason.tag());
        if (last == null || now - last > 60_000_000_000L) {
            lastLogged.put(reason.tag(), now);
            return true;
        }
        return false;
    }
}
