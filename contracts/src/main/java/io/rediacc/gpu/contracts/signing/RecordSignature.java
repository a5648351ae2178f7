package io.rediacc.gpu.contracts.signing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What a record's signature covers and where it travels: the one definition every signer and
 * verifier uses. Two CloudEvents extension headers carry it, {@value #SIGNATURE} (the Ed25519
 * signature, base64) and {@value #KEY_ID} ({@link SigningKeys#keyId}). The signed bytes are the
 * topic, the record key, the record's {@code ce_time} header and the value, each length-prefixed so
 * no two records share signed bytes; a tombstone's absent value is signed as length -1.
 */
public final class RecordSignature {

    /** CloudEvents extension attribute {@code rediaccsig} in binary mode. */
    public static final String SIGNATURE = "ce_rediaccsig";
    /** CloudEvents extension attribute {@code rediacckeyid} in binary mode. */
    public static final String KEY_ID = "ce_rediacckeyid";
    /** Separates these bytes from anything else one of our keys might ever sign. */
    private static final byte[] DOMAIN = "io.rediacc.gpu.record-signature.v1".getBytes(StandardCharsets.US_ASCII);

    private RecordSignature() {
    }

    /** The bytes a signature covers (written once into an array of their exact size: a reader builds them for every record). */
    public static byte[] signedBytes(String topic, String key, String ceTime, byte[] value) {
        byte[][] fields = {DOMAIN, utf8(topic), utf8(key), utf8(ceTime), value};
        int size = 0;
        for (byte[] f : fields) {
            size += 4 + (f == null ? 0 : f.length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (byte[] f : fields) {
            out.putInt(f == null ? -1 : f.length);
            if (f != null) {
                out.put(f);
            }
        }
        return out.array();
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
