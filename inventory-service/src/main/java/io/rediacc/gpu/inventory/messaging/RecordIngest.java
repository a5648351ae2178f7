package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import io.rediacc.gpu.inventory.metrics.IngestMetrics;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.rediacc.gpu.inventory.signing.RecordSignatures;
import io.smallrye.mutiny.Uni;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What every consumer of this service does with a record: its signature is checked first ({@link #signed},
 * on every topic), a tombstone removes its key, a value is
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

    /**
     * The records whose signature holds, in their order, with the machines' keys looked up once for
     * them all; the others are dropped and counted. When the keys cannot be looked up, every machine's
     * record counts as unregistered: the machines' next heartbeats replace them. The checks run on
     * {@link PollWorkers} (null: where the poll arrived), a share of the poll per thread; the verdicts are those of checking the records one
     * at a time in offset order (see {@link #verdicts}).
     */
    static Uni<List<ConsumerRecord<String, byte[]>>> signed(List<ConsumerRecord<String, byte[]>> records, String topic,
                                                            RecordSignatures signatures, IngestMetrics metrics,
                                                            PollWorkers workers) {
        return signatures.keysOf(records)
                .onFailure().recoverWithItem(e -> {
                    LOG.errorf("cannot look up machine keys (%s); this poll's %s records count as unregistered, the next"
                            + " heartbeats replace them", e.getMessage(), topic);
                    return Map.of();
                })
                .chain(looked -> PollWorkers.map(workers, records, record -> signatures.check(record, looked))
                        .map(refusals -> {
                            List<RecordRefusal> verdicts = verdicts(records, refusals, looked, signatures);
                            List<ConsumerRecord<String, byte[]>> signed = new ArrayList<>(records.size());
                            for (int i = 0; i < records.size(); i++) {
                                RecordRefusal refusal = verdicts.get(i);
                                if (refusal == null) {
                                    signed.add(records.get(i));
                                } else {
                                    dropped(metrics, topic, records.get(i), refusal.reason(), refusal.detail());
                                }
                            }
                            return signed;
                        }));
    }

    /** {@link #signed(List, String, RecordSignatures, IngestMetrics, PollWorkers)} of a poll of one record, checked where it arrived. */
    static Uni<List<ConsumerRecord<String, byte[]>>> signed(List<ConsumerRecord<String, byte[]>> records, String topic,
                                                            RecordSignatures signatures, IngestMetrics metrics) {
        return signed(records, topic, signatures, metrics, null);
    }

    /**
     * The verdicts of checking the records one at a time, in order, from the ones checked all at once against the
     * keys looked up: they differ only after a verified removal, which revokes the key it was looked up with —
     * the machine's later records in the poll are judged as after it (issue 31), not with the key read before it.
     * So from the first verified removal on, the records are checked again, one at a time, against the keys left
     * (removals are rare: the common poll costs nothing more).
     */
    static List<RecordRefusal> verdicts(List<ConsumerRecord<String, byte[]>> records, List<RecordRefusal> checked,
                                        Map<String, SignerKeys.MachineKey> looked, RecordSignatures signatures) {
        List<RecordRefusal> verdicts = new ArrayList<>(checked);
        Map<String, SignerKeys.MachineKey> keys = null; // the keys left once a removal revoked one
        for (int i = 0; i < records.size(); i++) {
            ConsumerRecord<String, byte[]> record = records.get(i);
            if (keys != null) {
                verdicts.set(i, signatures.check(record, keys));
            }
            if (verdicts.get(i) == null && record.value() == null && Topics.INVENTORY.equals(record.topic())) {
                if (keys == null) {
                    keys = new HashMap<>(looked);
                }
                keys.remove(record.key());
            }
        }
        return verdicts;
    }

    /**
     * A record's time: its {@code ce_time}, which the signature covers on every verified topic; never the Kafka
     * record timestamp, which whoever produces the record sets (a replay stamped now would look fresh). Every
     * record read here was verified first, and the signature covers a {@code ce_time} it requires; the arrival
     * time stands in only for a caller that did not verify.
     */
    static Instant recordTime(ConsumerRecord<String, byte[]> record) {
        Instant signed = io.rediacc.gpu.contracts.events.CloudEventHeaders.time(name -> {
            org.apache.kafka.common.header.Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        });
        return signed != null ? signed : Instant.now();
    }

    /** Counts and logs (rate-limited) a record dropped before it was applied. */
    static void dropped(IngestMetrics metrics, String topic, ConsumerRecord<String, byte[]> record, DropReason reason,
                        String why) {
        metrics.dropped(topic, reason, record.key(), record.partition() + "@" + record.offset(), why);
    }

    /** {@code what} names the record in logs, e.g. "inventory" or "gate status". */
    static Uni<Void> ingest(ConsumerRecord<String, byte[]> record, String topic, String what, IngestMetrics metrics,
                            Remove remove, Apply apply) {
        Instant recordTime = recordTime(record);
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
            dropped(metrics, topic, record, e.refusal().reason(), what + ": " + e.getMessage());
            return Uni.createFrom().voidItem();
        }
        return applied
                .invoke(outcome -> {
                    if (outcome == IngestOutcome.REPLAY) {
                        dropped(metrics, topic, record, DropReason.REPLAY, what + " " + record.key()
                                + " is at or below the position already accepted: a replay, changes nothing");
                    } else {
                        metrics.ingested(topic, outcome);
                    }
                })
                .onFailure().recoverWithItem(e -> {
                    LOG.errorf(e, "giving up on %s %s (partition %d offset %d); the next heartbeat replaces it",
                            what, record.key(), record.partition(), record.offset());
                    metrics.failed(topic);
                    return null;
                })
                .replaceWithVoid();
    }
}
