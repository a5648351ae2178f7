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
        if (record.value() == null) {
            RecordRefusal r = verify(record, serviceKey.publicKey(), "grant-service (the machine-removal path)");
            return Uni.createFrom().item(r == null ? null : new RecordRefusal(DropReason.FOREIGN_TOMBSTONE,
                    "a tombstone not written by the machine-removal path: " + r.detail()));
        }
        String machine = machineOf(record.key());
        if (machine == null) {
            return Uni.createFrom().item(new RecordRefusal(DropReason.KEY_MISMATCH,
                    "the record key is not a machine name (machine, or machine/gateId for gate status)"));
        }
        return keys.lookup(machine).map(key -> verify(record, key.orElse(null), "machine " + machine));
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
