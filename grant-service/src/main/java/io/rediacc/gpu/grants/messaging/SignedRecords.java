package io.rediacc.gpu.grants.messaging;

import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.signing.RecordAuthority;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.service.MachineKeys;
import io.rediacc.gpu.grants.signing.ServiceKey;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.time.Instant;
import java.util.Map;

/**
 * Whose word a record is, checked before it is read: the rule and the check are contracts'
 * ({@link RecordAuthority}, {@link RecordVerifier}); this class only loads the key the rule asks for (the
 * machine's registered key and removal fence from this service's database, grant-service's own key).
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
        // a tombstone is grant-service's, but the machine's registration still decides whether it is an old one replayed
        String machine = RecordAuthority.machineOf(record.topic(), record.key());
        Uni<Map<String, SignerKeys.MachineKey>> machineKeys = machine == null ? Uni.createFrom().item(Map.of())
                : keys.lookup(machine).map(found -> found.map(k -> Map.of(machine, k)).orElse(Map.of()));
        return machineKeys.map(found -> verifier.verify(record.topic(), record.key(), name -> {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, record.value(), SignerKeys.of(serviceKey.publicKey(), found), Instant.now()));
    }
}
