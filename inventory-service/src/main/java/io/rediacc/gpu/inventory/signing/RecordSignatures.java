package io.rediacc.gpu.inventory.signing;

import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Whose word a record is, checked before it is read: a machine's record must be signed by that
 * machine's registered key (the machine is the record key's, for gate status the part before the
 * slash), a tombstone by grant-service's key (only the machine-removal path writes tombstones).
 */
@ApplicationScoped
public class RecordSignatures {

    private final MachineKeys keys;
    private final ServicePublicKey serviceKey;
    private final RecordVerifier verifier;

    public RecordSignatures(MachineKeys keys, ServicePublicKey serviceKey, InventoryConfig config) {
        this.keys = keys;
        this.serviceKey = serviceKey;
        this.verifier = new RecordVerifier(config.maxClockSkew());
    }

    /** The registered keys of the machines these records speak for (looked up once per batch). */
    public Uni<Map<String, PublicKey>> keysOf(Collection<ConsumerRecord<String, byte[]>> records) {
        Set<String> machines = new LinkedHashSet<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            String m = machineOf(r.key());
            if (m != null && r.value() != null) {
                machines.add(m);
            }
        }
        return machines.isEmpty() ? Uni.createFrom().item(Map.of()) : keys.lookup(machines)
                .onFailure().retry().withBackOff(Duration.ofMillis(200), Duration.ofSeconds(5)).atMost(5);
    }

    /** Null when the record may be read; else why it is dropped. */
    public RecordRefusal check(ConsumerRecord<String, byte[]> record, Map<String, PublicKey> machineKeys) {
        if (record.value() == null) {
            RecordRefusal r = verify(record, serviceKey.key(), "grant-service (the machine-removal path)");
            return r == null ? null : new RecordRefusal(DropReason.FOREIGN_TOMBSTONE,
                    "a tombstone not written by the machine-removal path: " + r.detail());
        }
        String machine = machineOf(record.key());
        if (machine == null) {
            return new RecordRefusal(DropReason.KEY_MISMATCH,
                    "the record key is not a machine name (machine, or machine/gateId for gate status)");
        }
        return verify(record, machineKeys.get(machine), "machine " + machine);
    }

    private RecordRefusal verify(ConsumerRecord<String, byte[]> record, PublicKey key, String who) {
        return verifier.verify(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value(), key, who, Instant.now());
    }

    /** The machine a record key speaks for, or null. */
    public static String machineOf(String key) {
        if (key == null) {
            return null;
        }
        int slash = key.indexOf('/');
        String machine = slash < 0 ? key : key.substring(0, slash);
        return Identifiers.isMachine(machine) ? machine : null;
    }
}
