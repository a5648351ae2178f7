package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.contracts.api.RegisteredMachineKey;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.grants.repository.MachineKeyStore;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.security.PublicKey;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The machines' registered public keys: registration (trusted on the operator's word; a different key
 * for a registered machine only with {@code rekey}, audited) and the lookups the consumers verify
 * records with. A lookup reads the key and the machine's removal fence from the database every time,
 * never from a cache of machine to key: a removal revokes the key on the replica that serves it, and a
 * cache on another replica would let the revoked key verify for its lifetime (issue 31). Only the parsing
 * of a key's PEM text is cached, by that text.
 */
@ApplicationScoped
public class MachineKeys {

    private static final Logger LOG = Logger.getLogger(MachineKeys.class);
    /** Parsed keys kept by PEM text; cleared when full (only registered keys are ever parsed here). */
    private static final int PARSED_MAX = 100_000;

    private final MachineKeyStore store;
    private final Map<String, PublicKey> parsed = new ConcurrentHashMap<>();

    public MachineKeys(MachineKeyStore store) {
        this.store = store;
    }

    /** The machine's registered key with its removal fence, or empty (never registered, or revoked by a removal). */
    public Uni<Optional<SignerKeys.MachineKey>> lookup(String machine) {
        return store.find(machine).map(found -> found.map(k ->
                new SignerKeys.MachineKey(parsedKey(k.publicKeyPem()), k.registeredAt(), k.fence())));
    }

    private PublicKey parsedKey(String pem) {
        PublicKey key = parsed.get(pem);
        if (key == null) {
            if (parsed.size() >= PARSED_MAX) {
                parsed.clear();
            }
            key = SigningKeys.parsePublic(pem);
            parsed.put(pem, key);
        }
        return key;
    }

    public Uni<RegisteredMachineKey> show(String machine) {
        Identifiers.machine(machine);
        return store.find(machine).map(found -> found.map(k -> view(k, null, false))
                .orElseThrow(() -> new ApiProblem(ProblemType.NO_MACHINE_KEY,
                        "machine " + machine + " has no registered key",
                        "register it: rdc machine setup " + machine + " (or PUT /api/v1/machines/" + machine + "/key)",
                        Map.of("machine", machine))));
    }

    /** Registers {@code keyText} (PEM, or the base64 X.509 DER that {@code node-agent prepare} prints). */
    public Uni<RegisteredMachineKey> register(String machine, String keyText, boolean rekey, String actor, String reason) {
        try {
            Identifiers.machine(machine);
        } catch (InvalidIdentifierException e) {
            throw new ApiProblem(ProblemType.INVALID_IDENTIFIER, e.getMessage(), "use the machine's name as rdc machine list shows it");
        }
        PublicKey key = parse(keyText);
        String pem = SigningKeys.publicPem(key);
        String keyId = SigningKeys.keyId(key);
        return store.register(machine, pem, keyId, rekey, actor, reason).map(result -> {
            if (result instanceof MachineKeyStore.Held held) {
                throw Problems.machineKeyHeld(machine, held.current().keyId(), held.current().registeredBy(),
                        held.current().registeredAt(), keyId);
            }
            MachineKeyStore.Outcome outcome = (MachineKeyStore.Outcome) result;
            if (outcome.changed()) {
                if (outcome.previousKeyId() == null) {
                    LOG.infof("machine %s: key %s registered by %s", machine, keyId, actor);
                } else {
                    LOG.warnf("machine %s RE-KEYED by %s: key %s replaces %s%s", machine, actor, keyId,
                            outcome.previousKeyId(), reason == null ? "" : " (" + reason + ")");
                }
            }
            return view(outcome.key(), outcome.changed() ? outcome.previousKeyId() : null, outcome.changed());
        });
    }

    private static RegisteredMachineKey view(MachineKeyStore.StoredKey k, String previous, boolean changed) {
        return new RegisteredMachineKey(k.machine(), k.keyId(), k.publicKeyPem(), k.registeredBy(), k.registeredAt(), previous, changed);
    }

    static PublicKey parse(String text) {
        if (text == null || text.isBlank()) {
            throw new ApiProblem(ProblemType.INVALID_KEY, "no public key given",
                    "send {\"publicKey\": \"<PEM or base64>\"} with the machine's " + "/etc/rediacc/gpu/machine-key.pub");
        }
        try {
            return SigningKeys.parseOffered(text);
        } catch (IllegalArgumentException e) {
            throw new ApiProblem(ProblemType.INVALID_KEY, "the public key cannot be read: " + e.getMessage(),
                    "send the machine's /etc/rediacc/gpu/machine-key.pub (PEM) or the base64 line node-agent prepare prints");
        }
    }
}
