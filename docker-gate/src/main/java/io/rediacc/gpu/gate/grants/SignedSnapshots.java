package io.rediacc.gpu.gate.grants;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
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
    static final Duration SKEW = Duration.ofMinutes(2);

    private final PublicKey grantService;
    private final RecordVerifier verifier = new RecordVerifier(SKEW);
    private final MeterRegistry metrics;
    private final java.util.Map<String, Long> lastLogged = new java.util.concurrent.ConcurrentHashMap<>();

    public SignedSnapshots(PublicKey grantService, MeterRegistry metrics) {
        this.grantService = grantService;
        this.metrics = metrics;
    }

    /** Whether the record may be applied; a refusal is counted and logged here. */
    boolean trusted(ConsumerRecord<String, byte[]> record) {
        RecordRefusal refusal = verifier.verify(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value(), grantService, "grant-service", Instant.now());
        if (refusal == null) {
            return true;
        }
        dropped(record, refusal.reason(), refusal.detail());
        return false;
    }

    /**
     * Counts and logs a snapshot the gate does not apply: refused by its signature, or signed but not
     * strict JSON of a snapshot ({@link io.rediacc.gpu.contracts.json.StrictJson}, reason {@code invalid}).
     */
    void dropped(ConsumerRecord<String, byte[]> record, DropReason reason, String detail) {
        io.micrometer.core.instrument.Counter.builder("gate.grants.dropped")
                .description("Grant snapshots from gpu.grants.v1 the gate did not apply: unsigned, not signed by grant-service's key, dated ahead, or not strict JSON; by reason")
                .tag("reason", reason.tag())
                .register(metrics)
                .increment();
        long now = System.nanoTime();
        Long last = lastLogged.get(reason.tag());
        if (last == null || now - last > 60_000_000_000L) {
            lastLogged.put(reason.tag(), now);
            LOG.errorf("NOT applying grant snapshot at %s-%d@%d (%s): %s", record.topic(), record.partition(),
                    record.offset(), reason.tag(), detail);
        }
    }
}
