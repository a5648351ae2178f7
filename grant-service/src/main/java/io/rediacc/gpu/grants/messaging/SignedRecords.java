package io.rediacc.gpu.grants.messaging;

import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.service.MachineKeys;
import io.rediacc.gpu.grants.signing.ServiceKey;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.time.Instant;

/**
 * Whose word a record is, checked before it is read: a machine's record (inventory, gate status)
 * must be signed by that machine's registered key, a tombstone by grant-service's own key (only the
 * machine-removal path writes tombstones). The machine is the record key's (for gate status, the
 * part before the slash); RecordBounds then checks that the payload names the same machine.
 */
@ApplicationScoped
public class SignedRecords {

    private final MachineKeys keys;
    private final ServiceKey serviceKey;
    private final RecordVerifier verifier;

    public SignedRecords(MachineKeys keys, ServiceKey serviceKey, GrantsConfig config) {
        this.keys = keys;
        this.serviceKey = serviceKey;
        this.verifier = new RecordVerifier(config.input().maxClockSkew());
    }

    /** Null when the record may be read; else why it is dropped. */
    public Uni<RecordRefusal> check(ConsumerRecord<String, byte[]> record) {
        String machine = machineOf(record.key());
        if (record.value() == null) {
            RecordRefusal r = verify(record, serviceKey.publicKey(), "grant-service (the machine-removal path)");
            if (r != null) {
                return Uni.createFrom().item(new RecordRefusal(DropReason.FOREIGN_TOMBSTONE,
                        "a tombstone not written by the machine-removal path: " + r.detail()));
            }
            if (machine == null) {
                return Uni.createFrom().item(null); // the consumer refuses the key itself
            }
            // a removal signed before the machine's current registration is an old one replayed (issue 31)
            return keys.lookup(machine).map(found -> found.map(k -> signedBefore(record, k.registeredAt(), false,
                    "a removal of machine " + machine, "the machine's key registration")).orElse(null));
        }
        if (machine == null) {
            return Uni.createFrom().item(new RecordRefusal(DropReason.KEY_MISMATCH,
                    "the record key is not a machine name (machine, or machine/gateId for gate status)"));
        }
        return keys.lookup(machine).map(found -> {
            RecordRefusal r = verify(record, found.map(MachineKeys.Registered::key).orElse(null), "machine " + machine);
            return r != null || found.get().fence() == null ? r : signedBefore(record, found.get().fence(), true,
                    "a record of machine " + machine, "the machine's removal and new registration");
        });
    }

    /**
     * Refuses a verified record signed ({@code ce_time}) before {@code fence} (or at it, when {@code inclusive}):
     * it is from before the machine's removal and changes nothing now (issue 31).
     */
    private static RecordRefusal signedBefore(ConsumerRecord<String, byte[]> record, Instant fence,
                                                       boolean inclusive, String what, String fenceName) {
        Instant signedAt = DroppedRecords.signedTime(record);
        if (signedAt != null && (signedAt.isAfter(fence) || !inclusive && signedAt.equals(fence))) {
            return null;
        }
        return new RecordRefusal(DropReason.REPLAY, what + " signed at " + signedAt + ", before " + fenceName
                + " at " + fence + ": from before the removal, it changes nothing");
    }

    private RecordRefusal verify(ConsumerRecord<String, byte[]> record, java.security.PublicKey key, String who) {
        return verifier.verify(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value(), key, who, Instant.now());
    }

    /** The machine a record key speaks for, or null when it names none. */
    static String machineOf(String key) {
        if (key == null) {
            return null;
        }
        int slash = key.indexOf('/');
        String machine = slash < 0 ? key : key.substring(0, slash);
        return Identifiers.isMachine(machine) ? machine : null;
    }
}
