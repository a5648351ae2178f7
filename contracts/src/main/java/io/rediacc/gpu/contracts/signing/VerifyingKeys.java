package io.rediacc.gpu.contracts.signing;

import org.bouncycastle.math.ec.rfc8032.Ed25519;

import java.nio.ByteBuffer;
import java.security.PublicKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Public keys decoded once for verification, kept by their encoded bytes: the key id a record must name and the
 * curve point Bouncy Castle verifies with. Decoding the point (a square root in the field) and hashing the
 * encoding for the key id were a tenth of every record's check, paid again for the same machine's key in every
 * poll.
 *
 * <p>Only decoding is cached, never which key speaks for whom: a reader still looks a machine's key up at every
 * poll (inventory-service and grant-service read it with its removal fence from PostgreSQL, issue 31), so a
 * revoked key stops verifying at once — its decoded form here is simply never asked for again. The entry is a
 * pure function of the bytes it is kept by, so a stale entry cannot exist. Bounded: cleared when full, as the
 * services' parsed-PEM caches are (only registered keys and the service's own ever reach it).
 */
final class VerifyingKeys {

    /** More than a fleet's machines: the services' own bound on parsed keys. */
    static final int MAX = 100_000;

    private static final Map<ByteBuffer, Decoded> DECODED = new ConcurrentHashMap<>();

    private VerifyingKeys() {
    }

    /**
     * A key ready to verify with.
     *
     * @param key   the key as given (the JDK's {@link java.security.Signature} verifies a key that is not {@link #raw})
     * @param keyId {@link SigningKeys#keyId}
     * @param raw   whether it is an RFC 8410 Ed25519 key Bouncy Castle verifies with
     * @param point its decoded point; null for a raw key that is not a valid point (every signature refused)
     */
    record Decoded(PublicKey key, String keyId, boolean raw, Ed25519.PublicPoint point) {
    }

    static Decoded of(PublicKey key) {
        byte[] encoded = key.getEncoded();
        ByteBuffer id = ByteBuffer.wrap(encoded == null ? new byte[0] : encoded);
        Decoded d = DECODED.get(id);
        if (d == null || !d.key().getAlgorithm().equals(key.getAlgorithm())) {
            d = decode(key);
            if (encoded != null) {
                if (DECODED.size() >= MAX) {
                    DECODED.clear();
                }
                DECODED.put(id, d);
            }
        }
        return d;
    }

    private static Decoded decode(PublicKey key) {
        byte[] raw = Ed25519Math.rawPublic(key);
        return new Decoded(key, SigningKeys.keyId(key), raw != null, raw == null ? null : Ed25519Math.decode(raw));
    }

    /** How many keys are held decoded (tests). */
    static int size() {
        return DECODED.size();
    }
}
