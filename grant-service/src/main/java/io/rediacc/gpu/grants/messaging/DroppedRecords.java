package io.rediacc.gpu.grants.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.json.StrictJson;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Records a consumer refuses (unsigned or wrongly signed, RecordBounds, unreadable JSON) and the
 * checks that refuse them ({@link #admit}): counted in
 * {@code grants.input.dropped} by topic and reason, so a forging or broken producer shows up, and
 * logged with where they are and why — once a minute per reason and machine, so a flood of forged
 * records cannot flood the log (the line says how many were dropped since the last one).
 */
@ApplicationScoped
public class DroppedRecords {

    private static final Logger LOG = Logger.getLogger(DroppedRecords.class);
    static final long LOG_EVERY_NANOS = 60_000_000_000L;

    private record Logged(long at, long suppressed) {
    }

    private final MeterRegistry metrics;
    private final Map<String, Logged> lastLogged = new ConcurrentHashMap<>();

    public DroppedRecords(MeterRegistry metrics) {
        this.metrics = metrics;
    }

    /** The checks RecordBounds makes of one kind of record: null when the value may be applied, else why not. */
    @FunctionalInterface
    interface Bounds<T> {
        RecordRefusal refusal(String key, T value, Instant publishedAt, Instant now);
    }

    /** A record's value that is readable and within its bounds, and when it was published. */
    record Admitted<T>(T value, Instant publishedAt) {
    }

    /**
     * Reads the record unless its signature check refused it (then drops it): the first step every
     * consumer takes, so nothing of an unsigned or foreign record is read.
     */
    Uni<Void> readUnlessRefused(ConsumerRecord<String, byte[]> record, RecordRefusal refusal,
                                Function<ConsumerRecord<String, byte[]>, Uni<Void>> read) {
        if (refusal != null) {
            drop(record, refusal);
            return Uni.createFrom().voidItem();
        }
        return read.apply(record);
    }

    /**
     * A record's value as {@code type}, published at its signed {@code ce_time} and
     * within {@code bounds}; null after dropping it as not {@code what}, JSON null or out of bounds.
     */
    <T> Admitted<T> admit(ConsumerRecord<String, byte[]> record, Class<T> type, String what, Bounds<T> bounds) {
        T value;
        try {
            value = StrictJson.readEvent(record.value(), type); // trailing content, a key twice, a BOM: refused
        } catch (RuntimeException e) {
            drop(record, RecordRefusal.invalid("not " + what + " (" + e.getMessage() + ")"));
            return null;
        }
        if (value == null) {
            drop(record, RecordRefusal.invalid("the value is JSON null"));
            return null;
        }
        Instant now = Instant.now();
        // the signed ce_time (SignedRecords verified it), never the Kafka timestamp: whoever produces a record
        // sets that freely, and a replayed status stamped "now" would keep a dead gate live
        Instant publishedAt = signedTime(record);
        if (publishedAt == null) {
            drop(record, new RecordRefusal(DropReason.UNSIGNED, "the record carries no readable " + io.rediacc.gpu.contracts.events.CloudEventHeaders.TIME));
            return null;
        }
        RecordRefusal refused = bounds.refusal(record.key(), value, publishedAt, now);
        if (refused != null) {
            drop(record, refused);
            return null;
        }
        return new Admitted<>(value, publishedAt);
    }

    /** The record's signed {@code ce_time}; null when it has none. */
    static Instant signedTime(ConsumerRecord<String, byte[]> record) {
        return io.rediacc.gpu.contracts.events.CloudEventHeaders.time(name -> {
            org.apache.kafka.common.header.Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        });
    }

    /** Drops, counts by its reason and logs (at most once a minute per reason and machine) a refused record. */
    void drop(ConsumerRecord<String, byte[]> record, RecordRefusal refusal) {
        DropReason reason = refusal.reason();
        String why = refusal.detail();
        Counter.builder("grants.input.dropped")
                .description("Records read from Kafka and dropped because they failed the input checks or their signature, by topic and reason")
                .tag("topic", record.topic())
                .tag("reason", reason.tag())
                .register(metrics)
                .increment();
        String machine = io.rediacc.gpu.contracts.signing.RecordAuthority.machineOf(record.topic(), record.key());
        String slot = reason.tag() + "|" + (machine == null ? "?" : machine);
        if (lastLogged.size() > 10_000) {
            lastLogged.clear(); // forged keys must not grow this map without bound
        }
        long now = System.nanoTime();
        Logged last = lastLogged.get(slot);
        if (last != null && now - last.at() < LOG_EVERY_NANOS) {
            lastLogged.put(slot, new Logged(last.at(), last.suppressed() + 1));
            return;
        }
        lastLogged.put(slot, new Logged(now, 0));
        LOG.warnf("dropping record %s-%d@%d (%s)%s: %s", record.topic(), record.partition(), record.offset(), reason.tag(),
                last == null || last.suppressed() == 0 ? "" : " (and " + last.suppressed() + " more like it in the last minute)",
                why);
    }
}
