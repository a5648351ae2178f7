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
 * The one verifier of every reader: checks a record's signature against the one key that may speak for it
 * ({@link RecordAuthority}: the machine's registered key, or grant-service's for grants, grant events and
 * tombstones), that its signed {@code ce_time} is not beyond the clock skew ahead, and that a machine's record
 * or a removal is not from before the machine's removal ({@link RemovalFence}). Fails closed: anything
 * missing or unreadable is a refusal.
 */
public final class RecordVerifier {

    private final Duration skew;

    public RecordVerifier(Duration skew) {
        this.skew = skew;
    }

    /**
     * Null when the record's author ({@link RecordAuthority}) signed exactly this record, not dated ahead, and
     * not from before its machine's removal ({@link RemovalFence}); else why it is dropped. {@code headers} looks
     * up a header's last value (null when absent); a tombstone has a null {@code value}.
     */
    public RecordRefusal verify(String topic, String key, Function<String, byte[]> headers, byte[] value, SignerKeys keys,
                                Instant now) {
        RecordAuthority authority = RecordAuthority.of(topic, key, value == null);
        if (authority instanceof RecordAuthority.Nobody nobody) {
            return nobody.refusal();
        }
        if (authority instanceof RecordAuthority.Machine machine) {
            SignerKeys.MachineKey registered = keys.machine(machine.machine());
            RecordRefusal refusal = verify(topic, key, headers, value, registered == null ? null : registered.key(),
                    machine.who(), now);
            return refusal != null ? refusal : RemovalFence.checkRecord(machine, registered, CloudEventHeaders.time(headers));
        }
        if (value != null) {
            return verify(topic, key, headers, value, keys.grantService(), authority.who(), now);
        }
        RecordRefusal refusal = verify(topic, key, headers, null, keys.grantService(),
                authority.who() + " (the machine-removal path)", now);
        if (refusal != null) {
            return new RecordRefusal(DropReason.FOREIGN_TOMBSTONE, "a tombstone not written by the machine-removal path: "
                    + refusal.detail());
        }
        String machine = RecordAuthority.machineOf(topic, key);
        return machine == null ? null : RemovalFence.checkRemoval(machine, keys.machine(machine), CloudEventHeaders.time(headers));
    }

    /**
     * The signature check alone, against a key the caller chose. Readers call
     * {@link #verify(String, String, Function, byte[], SignerKeys, Instant)}, which chooses it by {@link RecordAuthority};
     * this one serves it and tests of what a signature covers.
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
        VerifyingKeys.Decoded decoded = VerifyingKeys.of(expected);
        String expectedId = decoded.keyId();
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
        if (!valid(decoded, RecordSignature.signedBytes(topic, key, ceTime, value), signature)) {
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

    /** {@link #verify(String, String, Function, byte[], SignerKeys, Instant)} of a kept record (a state file's copy). */
    public RecordRefusal verify(SignedRecord record, SignerKeys keys, Instant now) {
        return verify(record.topic(), record.key(), record::header, record.value(), keys, now);
    }

    private static boolean valid(VerifyingKeys.Decoded key, byte[] bytes, byte[] signature) {
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
