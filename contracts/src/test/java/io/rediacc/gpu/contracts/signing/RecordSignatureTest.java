package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.events.Topics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordSignatureTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private final KeyPair m1 = SigningKeys.generate();
    private final KeyPair m2 = SigningKeys.generate();
    private final RecordVerifier verifier = new RecordVerifier(Duration.ofMinutes(2));
    private final byte[] value = "{\"machine\":\"m1\"}".getBytes(StandardCharsets.UTF_8);

    private Map<String, byte[]> signed(KeyPair by, String key, byte[] v, Instant time) {
        Map<String, byte[]> headers = new HashMap<>(CloudEventHeaders.of(Topics.INVENTORY_TOPIC, "/node-agent/m1", key,
                "id-1", time));
        new RecordSigner(by.getPrivate(), by.getPublic()).sign(Topics.INVENTORY, key, headers, v);
        return headers;
    }

    private RecordRefusal verify(Map<String, byte[]> headers, String key, byte[] v, KeyPair registered) {
        return verifier.verify(Topics.INVENTORY, key, headers::get, v, registered == null ? null : registered.getPublic(),
                "machine m1", NOW);
    }

    @Test
    void aRecordSignedByItsMachinesKeyVerifies() {
        assertThat(verify(signed(m1, "m1", value, NOW), "m1", value, m1)).isNull();
    }

    /** The signed bytes, spelled out: every signer and verifier of every release must build exactly these. */
    @Test
    void theSignedBytesAreTheDomainTopicKeyTimeAndValueEachLengthPrefixed() {
        byte[] domain = "io.rediacc.gpu.record-signature.v1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        for (byte[] field : new byte[][]{domain, "t".getBytes(), "k\u00e9".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "2026-12-06T00:00:00Z".getBytes(), {1, 2, 3}}) {
            expected.writeBytes(java.nio.ByteBuffer.allocate(4).putInt(field.length).array());
            expected.writeBytes(field);
        }
        org.assertj.core.api.Assertions.assertThat(RecordSignature.signedBytes("t", "k\u00e9", "2026-12-06T00:00:00Z", new byte[]{1, 2, 3}))
                .isEqualTo(expected.toByteArray());
        byte[] tombstone = RecordSignature.signedBytes("t", "k", "x", null);
        org.assertj.core.api.Assertions.assertThat(java.util.Arrays.copyOfRange(tombstone, tombstone.length - 4, tombstone.length))
                .as("an absent value is length -1").isEqualTo(new byte[]{-1, -1, -1, -1});
    }

    @Test
    void aSignedTombstoneVerifiesAndIsNotTheSameAsAnEmptyValue() {
        Map<String, byte[]> tombstone = signed(m1, "m1", null, NOW);
        assertThat(verify(tombstone, "m1", null, m1)).isNull();
        assertThat(verify(tombstone, "m1", new byte[0], m1).reason()).isEqualTo(DropReason.BAD_SIGNATURE);
    }

    @Test
    void anUnsignedRecordIsRefused() {
        Map<String, byte[]> headers = new HashMap<>(CloudEventHeaders.of(Topics.INVENTORY_TOPIC, "/x", "m1", "id", NOW));
        assertThat(verify(headers, "m1", value, m1).reason()).isEqualTo(DropReason.UNSIGNED);
    }

    @Test
    void anotherMachinesKeyCannotSpeakForThisMachine() {
        assertThat(verify(signed(m2, "m1", value, NOW), "m1", value, m1).reason()).isEqualTo(DropReason.FOREIGN_KEY);
    }

    @Test
    void anUnregisteredMachineIsRefused() {
        assertThat(verify(signed(m1, "m1", value, NOW), "m1", value, null).reason()).isEqualTo(DropReason.UNREGISTERED);
    }

    @Test
    void changingTheValueKeyTopicOrTimeBreaksTheSignature() {
        Map<String, byte[]> headers = signed(m1, "m1", value, NOW);
        assertThat(verify(headers, "m1", "{\"machine\":\"m2\"}".getBytes(StandardCharsets.UTF_8), m1).reason())
                .isEqualTo(DropReason.BAD_SIGNATURE);
        assertThat(verify(headers, "m2", value, m1).reason()).isEqualTo(DropReason.BAD_SIGNATURE);
        assertThat(verifier.verify(Topics.GATE_STATUS, "m1", headers::get, value, m1.getPublic(), "m1", NOW).reason())
                .isEqualTo(DropReason.BAD_SIGNATURE);
        headers.put(CloudEventHeaders.TIME, NOW.minusSeconds(1).toString().getBytes(StandardCharsets.UTF_8));
        assertThat(verify(headers, "m1", value, m1).reason()).isEqualTo(DropReason.BAD_SIGNATURE);
    }

    @Test
    void aForgedSignatureWithTheRightKeyIdIsRefused() {
        Map<String, byte[]> headers = signed(m2, "m1", value, NOW);
        headers.put(RecordSignature.KEY_ID, SigningKeys.keyId(m1.getPublic()).getBytes(StandardCharsets.US_ASCII));
        assertThat(verify(headers, "m1", value, m1).reason()).isEqualTo(DropReason.BAD_SIGNATURE);
        headers.put(RecordSignature.SIGNATURE, "not base64!".getBytes(StandardCharsets.US_ASCII));
        assertThat(verify(headers, "m1", value, m1).reason()).isEqualTo(DropReason.BAD_SIGNATURE);
    }

    @Test
    void aSignedTimeBeyondTheSkewIsRefusedWithinItIsNot() {
        assertThat(verify(signed(m1, "m1", value, NOW.plusSeconds(119)), "m1", value, m1)).isNull();
        RecordRefusal late = verify(signed(m1, "m1", value, NOW.plus(Duration.ofMinutes(20))), "m1", value, m1);
        assertThat(late.reason()).isEqualTo(DropReason.FUTURE);
        assertThat(late.detail()).contains("NTP");
    }

    @Test
    void pemRoundTripsAndKeyIdsDiffer() {
        assertThat(SigningKeys.parsePublic(SigningKeys.publicPem(m1.getPublic()))).isEqualTo(m1.getPublic());
        assertThat(SigningKeys.keyId(m1.getPublic())).hasSize(32).isNotEqualTo(SigningKeys.keyId(m2.getPublic()));
        assertThatThrownBy(() -> SigningKeys.parsePublic("hello")).isInstanceOf(SigningKeys.InvalidKeyText.class)
                .hasMessageContaining("BEGIN PUBLIC KEY");
        assertThatThrownBy(() -> SigningKeys.parsePublic("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"))
                .isInstanceOf(SigningKeys.InvalidKeyText.class).hasMessageContaining("Ed25519");
    }

    @Test
    void aKeyPairIsWrittenOnceWithAPrivateFileOnlyOwnerAndGroupRead(@TempDir Path dir) throws Exception {
        Path pair = dir.resolve("gpu/machine-key.pem");
        KeyPairFile.Loaded first = KeyPairFile.ensure(pair);
        assertThat(first.created()).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pair))).isEqualTo("rw-r-----");
        Path pub = dir.resolve("gpu/machine-key.pub");
        assertThat(SigningKeys.parsePublic(Files.readString(pub))).isEqualTo(first.pair().getPublic());
        KeyPairFile.Loaded again = KeyPairFile.ensure(pair);
        assertThat(again.created()).isFalse();
        assertThat(again.pair().getPublic()).isEqualTo(first.pair().getPublic());
        assertThat(verify(signed(again.pair(), "m1", value, NOW), "m1", value, first.pair())).isNull();
    }

    @Test
    void processesCreatingTheKeyAtOnceEndWithOnePair(@TempDir Path dir) throws Exception {
        Path pair = dir.resolve("machine-key.pem");
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        java.util.concurrent.Callable<KeyPairFile.Loaded> task = () -> KeyPairFile.ensure(pair);
        var results = pool.invokeAll(java.util.Collections.nCopies(16, task));
        pool.shutdown();
        java.util.Set<java.security.PublicKey> keys = new java.util.HashSet<>();
        int created = 0;
        for (var r : results) {
            keys.add(r.get().pair().getPublic());
            created += r.get().created() ? 1 : 0;
        }
        assertThat(keys).hasSize(1);
        assertThat(created).isEqualTo(1);
    }
}
