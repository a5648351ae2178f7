package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.function.Function;

/**
 * Checks a record's signature against the one key that may speak for it (the machine's registered
 * key, or grant-service's for grants and tombstones), and that its signed {@code ce_time} is not
 * beyond the clock skew ahead. Fails closed: anything missing or unreadable is a refusal.
 */
public final class RecordVerifier {

    private final Duration skew;

    public RecordVerifier(Duration skew) {
        this.skew = skew;
    }

    /**
     * Null when {@code expected} signed exactly this record (topic, key, {@code ce_time}, value) and
     * {@code ce_time} is at most the skew ahead of {@code now}; else why not. {@code headers} looks
     * up a header's last value (null when absent); {@code expected} null means nobody is registered.
     */
    public RecordRefusal verify(String topic, String key, Function<String, byte[]> headers, byte[] value, PublicKey expected,
                          String expectedWho, Instant now) {
        byte[] sig = headers.apply(RecordSignature.SIGNATURE);
        byte[] keyIdBytes = headers.apply(RecordSignature.KEY_ID);
        byte[] time = headers.apply(CloudEventHeaders.TIME);
        if (sig == null || keyIdBytes == null || time == null) {
            return new RecordRefusal(DropReason.UNSIGNED, "the record carries no " + (sig == null ? RecordSignature.SIGNATURE
                    : keyIdBytes == null ? RecordSignature.KEY_ID : CloudEventHeaders.TIME) + " header; every record must be signed by "
                    + expectedWho);
        }
        if (expected == null) {
            return new RecordRefusal(DropReason.UNREGISTERED, expectedWho + " has no registered public key; an operator registers"
                    + " it with: rdc machine setup (or PUT /api/v1/machines/{machine}/key)");
        }
        String keyId = new String(keyIdBytes, StandardCharsets.US_ASCII);
        String expectedId = SigningKeys.keyId(expected);
        if (!expectedId.equals(keyId)) {
            return new RecordRefusal(DropReason.FOREIGN_KEY, "signed with key " + printable(keyId) + ", not " + expectedWho
                    + "'s registered key " + expectedId);
        }
        String ceTime = new String(time, StandardCharsets.UTF_8);
        byte[] signature;
        try {
            signature = Base64.getDecoder().decode(sig);
        } catch (IllegalArgumentException e) {
            return new RecordRefusal(DropReason.BAD_SIGNATURE, "the signature is not base64");
        }
        if (!valid(expected, RecordSignature.signedBytes(topic, key, ceTime, value), signature)) {
            return new RecordRefusal(DropReason.BAD_SIGNATURE, "the signature does not verify with " + expectedWho
                    + "'s key " + expectedId + " (the record was changed or forged)");
        }
        Instant at;
        try {
            at = Instant.parse(ceTime);
        } catch (DateTimeParseException e) {
            return new RecordRefusal(DropReason.INVALID, CloudEventHeaders.TIME + " \"" + printable(ceTime) + "\" is not an ISO-8601 instant");
        }
        if (at.isAfter(now.plus(skew))) {
            return new RecordRefusal(DropReason.FUTURE, CloudEventHeaders.TIME + " " + at + " is more than " + skew.toSeconds()
                    + " s ahead of this service's clock (" + now + "); check the sender's clock (NTP)");
        }
        return null;
    }

    /** {@link #verify(String, String, Function, byte[], PublicKey, String, Instant)} of a kept record (a state file's copy). */
    public RecordRefusal verify(SignedRecord record, PublicKey expected, String expectedWho, Instant now) {
        return verify(record.topic(), record.key(), record::header, record.value(), expected, expectedWho, now);
    }

    private static boolean valid(PublicKey key, byte[] bytes, byte[] signature) {
        try {
            return Ed25519Math.verify(key, bytes, signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    private static String printable(String s) {
        String t = s.length() > 64 ? s.substring(0, 64) + "…" : s;
        return t.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
