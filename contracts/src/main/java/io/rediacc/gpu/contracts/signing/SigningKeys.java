package io.rediacc.gpu.contracts.signing;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Ed25519 key pairs of machines and of grant-service, from the JDK: generation, PEM text (PKCS#8
 * private, X.509 public, the same encodings {@code openssl pkey} reads and writes) and key ids.
 */
public final class SigningKeys {

    public static final String ALGORITHM = "Ed25519";
    private static final String PUBLIC_LABEL = "PUBLIC KEY";
    private static final String PRIVATE_LABEL = "PRIVATE KEY";

    private SigningKeys() {
    }

    public static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no " + ALGORITHM + " (Java 15 or later has)", e);
        }
    }

    /** The key id a record names in {@link RecordSignature#KEY_ID}: the first 128 bits of SHA-256 of the X.509 encoding, hex. */
    public static String keyId(PublicKey key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String publicPem(PublicKey key) {
        return pem(PUBLIC_LABEL, key.getEncoded());
    }

    public static String privatePem(PrivateKey key) {
        return pem(PRIVATE_LABEL, key.getEncoded());
    }

    /** Reads an Ed25519 public key from PEM text; the message says what is wrong. */
    public static PublicKey parsePublic(String pem) {
        byte[] der = der(pem, PUBLIC_LABEL);
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new InvalidKeyText("not an " + ALGORITHM + " public key (" + e.getMessage() + ")");
        }
    }

    /** The longest key text read as base64 X.509 DER; an Ed25519 key's is 60 characters. */
    static final int MAX_OFFERED_LENGTH = 4096;

    /**
     * Reads a public key as an operator offers it for registration (grant-service and inventory-service
     * take the same): PEM, or the base64 X.509 DER line {@code node-agent prepare} prints. The length is
     * checked before anything is decoded; the message says what is wrong.
     */
    public static PublicKey parseOffered(String text) {
        String t = text == null ? "" : text.strip();
        if (t.startsWith("-----BEGIN")) {
            return parsePublic(t);
        }
        if (t.length() > MAX_OFFERED_LENGTH) {
            throw new InvalidKeyText("the key is " + t.length() + " characters; an " + ALGORITHM + " key is about 60");
        }
        try {
            Base64.getDecoder().decode(t);
        } catch (IllegalArgumentException e) {
            throw new InvalidKeyText("neither PEM nor base64 (" + e.getMessage() + ")");
        }
        return parsePublic("-----BEGIN " + PUBLIC_LABEL + "-----\n" + t + "\n-----END " + PUBLIC_LABEL + "-----\n");
    }

    public static PrivateKey parsePrivate(String pem) {
        byte[] der = der(pem, PRIVATE_LABEL);
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new InvalidKeyText("not an " + ALGORITHM + " private key (" + e.getMessage() + ")");
        }
    }

    static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    static byte[] der(String pem, String label) {
        if (pem == null || pem.isBlank()) {
            throw new InvalidKeyText("the key text is empty; expected PEM starting with -----BEGIN " + label + "-----");
        }
        if (pem.length() > 4096) {
            throw new InvalidKeyText("the key text is " + pem.length() + " characters; an Ed25519 PEM key is about 120");
        }
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new InvalidKeyText("expected PEM text between " + begin + " and " + end);
        }
        String body = pem.substring(from + begin.length(), to).replaceAll("\\s", "");
        try {
            return Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException e) {
            throw new InvalidKeyText("the PEM body is not base64 (" + e.getMessage() + ")");
        }
    }

    /** Key text that cannot be read as the expected key; the message says why. */
    public static final class InvalidKeyText extends IllegalArgumentException {
        public InvalidKeyText(String message) {
            super(message);
        }
    }
}
