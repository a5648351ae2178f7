package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.events.Topics;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Who may sign which record (issue 32), and that the one verifier holds every reader to it (issue 31). */
class RecordAuthorityTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private final KeyPair service = SigningKeys.generate();
    private final KeyPair m1 = SigningKeys.generate();
    private final RecordVerifier verifier = new RecordVerifier(Duration.ofMinutes(2));
    private final byte[] value = "{\"machine\":\"m1\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void grantServiceSignsGrantsGrantEventsAndEveryTombstone() {
        assertThat(RecordAuthority.of(Topics.GRANTS, "m1", false)).isEqualTo(new RecordAuthority.GrantService());
        assertThat(RecordAuthority.of(Topics.GRANT_EVENTS, "m1", false)).isEqualTo(new RecordAuthority.GrantService());
        for (Topics.TopicSpec topic : Topics.ALL) {
            assertThat(RecordAuthority.of(topic.name(), "m1", true)).as(topic.name()).isEqualTo(new RecordAuthority.GrantService());
        }
    }

    @Test
    void theMachineTheKeyNamesSignsInventoriesGateStatusesAndGateDecisions() {
        assertThat(RecordAuthority.of(Topics.INVENTORY, "m1", false)).isEqualTo(new RecordAuthority.Machine("m1"));
        assertThat(RecordAuthority.of(Topics.GATE_DECISIONS, "m1", false)).isEqualTo(new RecordAuthority.Machine("m1"));
        assertThat(RecordAuthority.of(Topics.GATE_STATUS, "m1/gate-1", false)).isEqualTo(new RecordAuthority.Machine("m1"));
    }

    @Test
    void aKeyThatNamesNoMachineOrAnUnknownTopicHasNoSigner() {
        assertThat(refusal(RecordAuthority.of(Topics.INVENTORY, "m1/gate-1", false))).isEqualTo(DropReason.KEY_MISMATCH);
        assertThat(refusal(RecordAuthority.of(Topics.GATE_STATUS, "m1", false))).isEqualTo(DropReason.KEY_MISMATCH);
        assertThat(refusal(RecordAuthority.of(Topics.GATE_STATUS, "m1/a/b", false))).isEqualTo(DropReason.KEY_MISMATCH);
        assertThat(refusal(RecordAuthority.of(Topics.GATE_DECISIONS, "M1", false))).isEqualTo(DropReason.KEY_MISMATCH);
        assertThat(refusal(RecordAuthority.of(Topics.INVENTORY, null, false))).isEqualTo(DropReason.KEY_MISMATCH);
        assertThat(refusal(RecordAuthority.of("gpu.other.v1", "m1", false))).isEqualTo(DropReason.INVALID);
    }

    @Test
    void aMachinesKeyCannotSignAGrantNorAGrantEventNorATombstone() {
        Map<String, RecordRefusal> refused = new HashMap<>();
        refused.put("grant", verify(Topics.GRANTS, "m1", value, m1, NOW));
        refused.put("event", verify(Topics.GRANT_EVENTS, "m1", value, m1, NOW));
        assertThat(refused.values()).allSatisfy(r -> assertThat(r.reason()).isEqualTo(DropReason.FOREIGN_KEY));
        assertThat(verify(Topics.INVENTORY, "m1", null, m1, NOW).reason()).isEqualTo(DropReason.FOREIGN_TOMBSTONE);
        assertThat(verify(Topics.GRANTS, "m1", value, service, NOW)).isNull();
        assertThat(verify(Topics.GRANT_EVENTS, "m1", value, service, NOW)).isNull();
    }

    @Test
    void grantServicesKeyCannotSpeakForAMachine() {
        assertThat(verify(Topics.INVENTORY, "m1", value, service, NOW).reason()).isEqualTo(DropReason.FOREIGN_KEY);
        assertThat(verify(Topics.GATE_DECISIONS, "m1", value, service, NOW).reason()).isEqualTo(DropReason.FOREIGN_KEY);
        assertThat(verify(Topics.GATE_DECISIONS, "m1", value, m1, NOW)).isNull();
    }

    @Test
    void anUnsignedGrantOrEventIsRefused() {
        Map<String, byte[]> headers = new HashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC, "/x", "m1", "id", NOW));
        assertThat(verifier.verify(Topics.GRANTS, "m1", headers::get, value, keys(null, null), NOW).reason())
                .isEqualTo(DropReason.UNSIGNED);
    }

    @Test
    void afterARemovalOnlyRecordsSignedAfterTheNewRegistrationCount() {
        Instant removed = NOW.minusSeconds(60);
        Instant reRegistered = NOW.minusSeconds(30);
        SignerKeys.MachineKey again = new SignerKeys.MachineKey(m1.getPublic(), reRegistered,
                RemovalFence.fence(reRegistered, removed));
        assertThat(verifyAs(Topics.INVENTORY, "m1", value, m1, NOW.minusSeconds(90), again).reason()).isEqualTo(DropReason.REPLAY);
        assertThat(verifyAs(Topics.GATE_STATUS, "m1/g", value, m1, reRegistered, again).reason()).isEqualTo(DropReason.REPLAY);
        assertThat(verifyAs(Topics.INVENTORY, "m1", value, m1, reRegistered.plusMillis(1), again)).isNull();
        // never removed: no fence
        SignerKeys.MachineKey first = new SignerKeys.MachineKey(m1.getPublic(), reRegistered, RemovalFence.fence(reRegistered, null));
        assertThat(verifyAs(Topics.INVENTORY, "m1", value, m1, NOW.minusSeconds(90), first)).isNull();
    }

    @Test
    void anOldRemovalReplayedAfterTheMachineRejoinedChangesNothing() {
        Instant reRegistered = NOW.minusSeconds(30);
        SignerKeys.MachineKey again = new SignerKeys.MachineKey(m1.getPublic(), reRegistered, reRegistered);
        assertThat(verifyAs(Topics.INVENTORY, "m1", null, service, NOW.minusSeconds(60), again).reason()).isEqualTo(DropReason.REPLAY);
        assertThat(verifyAs(Topics.GATE_STATUS, "m1/g", null, service, NOW.minusSeconds(60), again).reason()).isEqualTo(DropReason.REPLAY);
        assertThat(verifyAs(Topics.INVENTORY, "m1", null, service, NOW, again)).isNull();
        // the machine's key is revoked (removed, not rejoined): a removal counts
        assertThat(verifier.verify(Topics.INVENTORY, "m1", signed(service, Topics.INVENTORY_TOPIC, "m1", null, NOW.minusSeconds(60))::get,
                null, keys(service, null), NOW)).isNull();
    }

    @Test
    void aKeptCopyIsHeldToTheSameRule() {
        Map<String, byte[]> headers = signed(service, Topics.GRANTS_TOPIC, "m1", value, NOW);
        SignedRecord copy = SignedRecord.of(Topics.GRANTS, "m1", headers::get, value);
        assertThat(verifier.verify(copy, SignerKeys.grantServiceOnly(service.getPublic()), NOW)).isNull();
        SignedRecord moved = new SignedRecord(Topics.INVENTORY, "m1", copy.ceTime(), copy.keyId(), copy.signature(), value);
        assertThat(verifier.verify(moved, SignerKeys.grantServiceOnly(service.getPublic()), NOW).reason())
                .isEqualTo(DropReason.UNREGISTERED);
    }

    private static DropReason refusal(RecordAuthority authority) {
        assertThat(authority).isInstanceOf(RecordAuthority.Nobody.class);
        return ((RecordAuthority.Nobody) authority).refusal().reason();
    }

    private RecordRefusal verify(String topic, String key, byte[] v, KeyPair by, Instant time) {
        return verifyAs(topic, key, v, by, time, new SignerKeys.MachineKey(m1.getPublic(), NOW.minusSeconds(3600), null));
    }

    private RecordRefusal verifyAs(String topic, String key, byte[] v, KeyPair by, Instant time, SignerKeys.MachineKey m1Key) {
        Map<String, byte[]> headers = signed(by, Topics.byName(topic), key, v, time);
        return verifier.verify(topic, key, headers::get, v, keys(service, m1Key), NOW);
    }

    private static SignerKeys keys(KeyPair service, SignerKeys.MachineKey m1Key) {
        return SignerKeys.of(service == null ? null : service.getPublic(), m1Key == null ? Map.of() : Map.of("m1", m1Key));
    }

    private static Map<String, byte[]> signed(KeyPair by, Topics.TopicSpec topic, String key, byte[] v, Instant time) {
        Map<String, byte[]> headers = new HashMap<>(CloudEventHeaders.of(topic, "/tests", key, "id-1", time));
        new RecordSigner(by.getPrivate(), by.getPublic()).sign(topic.name(), key, headers, v);
        return headers;
    }
}
