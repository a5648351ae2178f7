package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Exactly what one signature covers and carries, kept apart from Kafka: the topic, record key,
 * {@code ce_time} header, value bytes as received, and the {@link RecordSignature} headers. A reader
 * that keeps a record (the gate's state file) keeps this, so its copy verifies again with
 * {@link RecordVerifier#verify(SignedRecord, SignerKeys, java.time.Instant)}.
 *
 * @param signature the {@value RecordSignature#SIGNATURE} header as sent (base64 text)
 * @param value     the value bytes, never re-serialised: the signature is over these
 */
public record SignedRecord(String topic, String key, String ceTime, String keyId, String signature, byte[] value) {

    /** The signed parts of a record whose headers {@code headers} looks up (last value; null when absent); null parts stay null. */
    public static SignedRecord of(String topic, String key, Function<String, byte[]> headers, byte[] value) {
        return new SignedRecord(topic, key, text(headers.apply(CloudEventHeaders.TIME)),
                text(headers.apply(RecordSignature.KEY_ID)), text(headers.apply(RecordSignature.SIGNATURE)), value);
    }

    /** The record's headers as {@link RecordVerifier} looks them up. */
    public byte[] header(String name) {
        String v = switch (name) {
            case CloudEventHeaders.TIME -> ceTime;
            case RecordSignature.KEY_ID -> keyId;
            case RecordSignature.SIGNATURE -> signature;
            default -> null;
        };
        return v == null ? null : v.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
