package io.rediacc.gpu.contracts.signing;

import java.security.PublicKey;
import java.util.Map;

/**
 * The keys a reader checks records with: grant-service's, and each machine's registered one together with the
 * machine's removal fence. Readers load what {@link RecordAuthority} asks for (from their database, a file, a
 * cache they invalidate on revocation) and hand it to {@link RecordVerifier} here.
 */
public interface SignerKeys {

    /** grant-service's public key; null when this reader holds none. */
    PublicKey grantService();

    /** The machine's registered key and fence; null when it has none (never registered, or revoked by a removal). */
    MachineKey machine(String machine);

    /**
     * A machine's registered key.
     *
     * @param registeredAt when this key was registered
     * @param fence        see {@link RemovalFence}: null for a machine never removed
     */
    record MachineKey(PublicKey key, java.time.Instant registeredAt, java.time.Instant fence) {
    }

    /** grant-service's key and machine keys from a map (absent: none registered). */
    static SignerKeys of(PublicKey grantService, Map<String, MachineKey> machines) {
        return new SignerKeys() {
            @Override
            public PublicKey grantService() {
                return grantService;
            }

            @Override
            public MachineKey machine(String machine) {
                return machines.get(machine);
            }
        };
    }

    /** Only grant-service's key (a reader of grant-service's topics only: the gate). */
    static SignerKeys grantServiceOnly(PublicKey grantService) {
        return of(grantService, Map.of());
    }
}
