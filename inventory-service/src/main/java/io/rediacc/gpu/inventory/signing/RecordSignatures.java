package io.rediacc.gpu.inventory.signing;

import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.signing.RecordAuthority;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Whose word a record is, checked before it is read, on every topic this service reads (the read model's and
 * the dashboard's): the rule and the check are contracts' ({@link RecordAuthority}, {@link RecordVerifier});
 * this class only loads the keys the rule asks for, a batch at a time.
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

    /**
     * The registered keys of the machines these records speak for (looked up once per batch): the signers of
     * machines' records, and the machines a removal names (its replay is judged against their registration).
     */
    public Uni<Map<String, SignerKeys.MachineKey>> keysOf(Collection<ConsumerRecord<String, byte[]>> records) {
        Set<String> machines = new LinkedHashSet<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            String m = RecordAuthority.of(r.topic(), r.key(), r.value() == null) instanceof RecordAuthority.Machine machine
                    ? machine.machine() : r.value() == null ? RecordAuthority.machineOf(r.topic(), r.key()) : null;
            if (m != null) {
                machines.add(m);
            }
        }
        return machines.isEmpty() ? Uni.createFrom().item(Map.of()) : keys.lookup(machines)
                .onFailure().retry().withBackOff(Duration.ofMillis(200), Duration.ofSeconds(5)).atMost(5);
    }

    /** Null when the record may be read; else why it is dropped. */
    public RecordRefusal check(ConsumerRecord<String, byte[]> record, Map<String, SignerKeys.MachineKey> machineKeys) {
        return verifier.verify(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value(), SignerKeys.of(serviceKey.key(), machineKeys), Instant.now());
    }
}
