package io.rediacc.gpu.grants.signing;

import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.grants.config.GrantsConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.nio.file.Files;
import java.security.KeyPair;
import java.security.PublicKey;

/**
 * grant-service's own key pair ({@code grants.signing.key-file}): it signs every record the relay
 * publishes — grant snapshots, audit events, the removal path's tombstones — and is the only key a
 * tombstone of a machine's record may carry.
 */
@ApplicationScoped
public class ServiceKey {

    private static final Logger LOG = Logger.getLogger(ServiceKey.class);

    private final KeyPair pair;
    private final RecordSigner signer;

    public ServiceKey(GrantsConfig config) {
        var file = config.signing().keyFile();
        if (!Files.exists(file) && !config.signing().createIfMissing()) {
            throw new IllegalStateException("grants.signing.key-file " + file + " does not exist: give every replica the same"
                    + " Ed25519 key pair (PEM private and public key in one file; see docs/SECURITY.md), or set"
                    + " grants.signing.create-if-missing=true for a single local replica");
        }
        KeyPairFile.Loaded loaded = KeyPairFile.ensure(file);
        this.pair = loaded.pair();
        this.signer = new RecordSigner(pair.getPrivate(), pair.getPublic());
        LOG.infof("%s signing key %s (key id %s)", loaded.created() ? "created" : "loaded", file, signer.keyId());
    }

    public RecordSigner signer() {
        return signer;
    }

    public PublicKey publicKey() {
        return pair.getPublic();
    }

    public String publicPem() {
        return SigningKeys.publicPem(pair.getPublic());
    }
}
