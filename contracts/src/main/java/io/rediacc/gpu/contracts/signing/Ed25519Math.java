package io.rediacc.gpu.contracts.signing;

import org.bouncycastle.math.ec.rfc8032.Ed25519;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.EdECPrivateKey;
import java.util.Arrays;

/**
 * Ed25519 signing and verification for {@link RecordSigner} and {@link RecordVerifier}, with Bouncy
 * Castle's RFC 8032 arithmetic instead of the JDK's provider.
 *
 * <p>Why: JDK 17's Ed25519 costs 0.6–1 ms of CPU per signature and as much per verification (no
 * precomputed tables), 6–8× Bouncy Castle's ({@code RecordSigningBench}); every grant signs two
 * records in the outbox relay, and every record a gate or grant-service reads is verified. Ed25519
 * signatures are deterministic (RFC 8032), so both give byte-identical signatures for the same key
 * and bytes ({@code Ed25519MathTest} holds them to it); keys stay the JDK's ({@link SigningKeys}). A
 * key of another provider, whose raw bytes are not readable, goes through the JDK's {@link Signature}
 * as before. One verdict differs, on purpose: a signature longer than RFC 8032's 64 bytes is refused
 * (JDK 17 accepts one with bytes appended).
 */
final class Ed25519Math {

    /** The X.509 SubjectPublicKeyInfo prefix of an Ed25519 key (RFC 8410); the raw 32 bytes follow. */
    private static final byte[] X509_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

    private Ed25519Math() {
    }

    /** A private key ready to sign: its 32-byte seed and the public key derived from it (derived once). */
    static final class SigningKey {
        private final PrivateKey key;
        private final byte[] seed;
        private final byte[] publicKey;

        SigningKey(PrivateKey key) {
            this.key = key;
            byte[] raw = key instanceof EdECPrivateKey ed ? ed.getBytes().orElse(null) : null;
            if (raw != null && raw.length == Ed25519.SECRET_KEY_SIZE) {
                seed = raw;
                publicKey = new byte[Ed25519.PUBLIC_KEY_SIZE];
                Ed25519.generatePublicKey(seed, 0, publicKey, 0);
            } else {
                seed = null;
                publicKey = null;
            }
        }

        byte[] sign(byte[] bytes) throws GeneralSecurityException {
            if (seed == null) {
                Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
                s.initSign(key);
                s.update(bytes);
                return s.sign();
            }
            byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
            Ed25519.sign(seed, 0, publicKey, 0, bytes, 0, bytes.length, signature, 0);
            return signature;
        }
    }

    /** Whether {@code signature} is {@code key}'s over {@code bytes}; false for anything malformed. */
    static boolean verify(PublicKey key, byte[] bytes, byte[] signature) throws GeneralSecurityException {
        return verify(VerifyingKeys.of(key), bytes, signature);
    }

    /** The same, with the key decoded already ({@link VerifyingKeys}). */
    static boolean verify(VerifyingKeys.Decoded key, byte[] bytes, byte[] signature) throws GeneralSecurityException {
        if (!key.raw()) {
            Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
            s.initVerify(key.key());
            s.update(bytes);
            return s.verify(signature);
        }
        if (signature.length != Ed25519.SIGNATURE_SIZE || key.point() == null) {
            return false;
        }
        return Ed25519.verify(signature, 0, key.point(), bytes, 0, bytes.length);
    }

    /**
     * The key's 32 raw bytes when it is an Ed25519 key in the X.509 encoding RFC 8410 gives it; null for a key of
     * another provider (verified through the JDK's {@link Signature}).
     */
    static byte[] rawPublic(PublicKey key) {
        byte[] encoded = key.getEncoded();
        if (!SigningKeys.ALGORITHM.equals(key.getAlgorithm()) && !"EdDSA".equals(key.getAlgorithm())
                || encoded == null || encoded.length != X509_PREFIX.length + Ed25519.PUBLIC_KEY_SIZE
                || !Arrays.equals(encoded, 0, X509_PREFIX.length, X509_PREFIX, 0, X509_PREFIX.length)) {
            return null;
        }
        return Arrays.copyOfRange(encoded, X509_PREFIX.length, encoded.length);
    }

    /**
     * The raw key decoded to a curve point with exactly the checks {@code Ed25519.verify} makes of a key given as
     * bytes at every call (canonical encoding, on the curve); null when it fails them, and then every signature
     * is refused, as {@code verify} refuses it.
     */
    static Ed25519.PublicPoint decode(byte[] raw) {
        return Ed25519.validatePublicKeyPartialExport(raw, 0);
    }
}
