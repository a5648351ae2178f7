package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Base64;
import java.util.Map;

/** Signs records with one key (a machine's, or grant-service's): adds {@link RecordSignature}'s two headers. */
public final class RecordSigner {

    private final Ed25519Math.SigningKey key;
    private final String keyId;

    public RecordSigner(PrivateKey key, PublicKey publicKey) {
        this.key = new Ed25519Math.SigningKey(key);
        this.keyId = SigningKeys.keyId(publicKey);
    }

    public String keyId() {
        return keyId;
    }

    /**
     * Adds the signature and key id to {@code headers}, which must already hold {@code ce_time}
     * ({@link CloudEventHeaders#of}); {@code value} null signs a tombstone.
     */
    public void sign(String topic, String recordKey, Map<String, byte[]> headers, byte[] value) {
        byte[] time = headers.get(CloudEventHeaders.TIME);
        if (time == null) {
            throw new IllegalArgumentException("a signed record needs its " + CloudEventHeaders.TIME + " header first");
        }
        byte[] signature = signature(RecordSignature.signedBytes(topic, recordKey,
                new String(time, StandardCharsets.UTF_8), value));
        headers.put(RecordSignature.SIGNATURE, Base64.getEncoder().encode(signature));
        headers.put(RecordSignature.KEY_ID, keyId.getBytes(StandardCharsets.US_ASCII));
    }

    private byte[] signature(byte[] bytes) {
        try {
            return key.sign(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with " + SigningKeys.ALGORITHM + ": " + e.getMessage(), e);
        }
    }
}
