package io.rediacc.gpu.inventory.signing;

import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PublicKey;

/**
 * grant-service's public key ({@code inventory.signing.service-key}): the only key a tombstone may be
 * signed with, because only grant-service's machine-removal path writes tombstones.
 */
@ApplicationScoped
public class ServicePublicKey {

    private final PublicKey key;

    public ServicePublicKey(InventoryConfig config) {
        var file = config.signing().serviceKey();
        try {
            if (!Files.exists(file) && config.signing().createIfMissing()) {
                KeyPairFile.ensure(file); // tests: the test signs the removal path's tombstones with this pair
            }
            // a public key file, or a pair file (its PUBLIC KEY block is read)
            this.key = SigningKeys.parsePublic(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("inventory.signing.service-key " + file + " cannot be read (" + e.getMessage()
                    + "): give it grant-service's public key (the .pub beside grants.signing.key-file)", e);
        }
    }

    public PublicKey key() {
        return key;
    }
}
