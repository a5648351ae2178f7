package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.json.GrantSnapshotDecoder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediacc.gpu.gate.support.GrantsTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GrantStoreTest {

    private static final String A = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43";
    private static final String FORK = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

    @TempDir
    Path dir;

    private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
    private final SignedSnapshots verifier = GrantsTopic.verifier(metrics);

    /** What the feed does with a record grant-service signed. */
    private static boolean apply(GrantStore store, GrantSnapshot snapshot) {
        return store.apply(snapshot, GrantsTopic.signed(snapshot));
    }

    private static void keep(GrantSnapshotFile file, GrantSnapshot snapshot) {
        file.write(GrantsTopic.signed(snapshot), snapshot.version());
    }

    private double replays() {
        var c = metrics.find("gate.grants.dropped").tag("reason", "replay").counter();
        return c == null ? 0 : c.count();
    }

    private static GrantSnapshot snapshot(String machine, long version, Grant... grants) {
        return new GrantSnapshot(machine, version, Instant.now(), List.of(grants));
    }

    private static Grant grant(String guid, String device) {
        return new Grant(guid, "repo", device, false, "op", Instant.now());
    }

    @Test
    void nothingIsLoadedBeforeKafkaOrDiskSaySo() {
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);

        assertThat(store.loaded()).isFalse();
        store.markCaughtUp();
        assertThat(store.loaded()).isTrue();
    }

    @Test
    void repeatedValuesAreHeldOnceFromKafkaAndFromDisk() {
        // Distinct instances of equal values, as a JSON reader produces them.
        Instant at = Instant.parse("2026-11-29T10:00:00Z");
        Grant first = new Grant(new String(A), new String("repo"), new String("nvidia.com/gpu=0"), false, new String("op"), at);
        Grant second = new Grant(new String(A), new String("repo"), new String("nvidia.com/gpu=1"), false, new String("op"),
                Instant.parse("2026-11-29T10:00:00Z"));
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        apply(store, new GrantSnapshot("m1", 3, at, List.of(first, second)));

        GrantStore restarted = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        restarted.loadFromDisk();

        for (GrantStore s : List.of(store, restarted)) {
            List<Grant> held = s.state().grants();
            assertThat(held).containsExactly(first, second);
            assertThat(held.get(1).repoGuid()).isSameAs(held.get(0).repoGuid());
            assertThat(held.get(1).repoName()).isSameAs(held.get(0).repoName());
            assertThat(held.get(1).grantedBy()).isSameAs(held.get(0).grantedBy());
            assertThat(held.get(1).grantedAt()).isSameAs(held.get(0).grantedAt());
        }
    }

    @Test
    void onlyNewerSnapshotsOfThisMachineApply() {
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);

        assertThat(apply(store, snapshot("m1", 5, grant(A, "nvidia.com/gpu=0")))).isTrue();
        assertThat(apply(store, snapshot("m1", 4, grant(A, "nvidia.com/gpu=1")))).as("older").isFalse();
        assertThat(apply(store, snapshot("m1", 5))).as("same version replayed").isFalse();
        assertThat(apply(store, snapshot("m2", 9, grant(A, "nvidia.com/gpu=1")))).as("other machine").isFalse();

        assertThat(store.state().version()).isEqualTo(5);
        assertThat(store.holds(A, "nvidia.com/gpu=0")).isTrue();
        assertThat(store.holds(A, "nvidia.com/gpu=1")).isFalse();
    }

    @Test
    void grantsBelongToTheGuidAndTheExactName() {
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        apply(store, snapshot("m1", 1, grant(A, "nvidia.com/gpu=all")));

        assertThat(store.holds(A, "nvidia.com/gpu=all")).isTrue();
        assertThat(store.holds(A, "nvidia.com/gpu=0")).as("all does not admit card 0").isFalse();
        assertThat(store.holds(FORK, "nvidia.com/gpu=all")).as("a fork holds nothing of its parent").isFalse();
    }

    @Test
    void aRevocationReplacesTheWholeSet() {
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        apply(store, snapshot("m1", 1, grant(A, "nvidia.com/gpu=0")));
        apply(store, snapshot("m1", 2));

        assertThat(store.holds(A, "nvidia.com/gpu=0")).isFalse();
    }

    @Test
    void theLastAppliedSnapshotSurvivesARestartThroughTheDisk() throws Exception {
        GrantStore before = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        apply(before, snapshot("m1", 3, grant(A, "nvidia.com/gpu=0")));
        apply(before, snapshot("m1", 4, grant(A, "nvidia.com/gpu=1")));

        GrantStore after = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        after.loadFromDisk();
        assertThat(after.loaded()).as("not enforced while Kafka may hold a newer snapshot").isFalse();
        after.kafkaUnreachable();

        assertThat(after.loaded()).isTrue();
        assertThat(after.state().fromDisk()).isTrue();
        assertThat(after.state().caughtUp()).isFalse();
        assertThat(after.state().version()).isEqualTo(4);
        assertThat(after.holds(A, "nvidia.com/gpu=1")).isTrue();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temporary files left")
                    .containsExactly("grants-m1.json");
        }
    }

    @Test
    void aSnapshotOnDiskIsNotEnforcedWhileKafkaAnswersSoAGrantRevokedMeanwhileIsNeverAdmitted() {
        GrantStore before = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        apply(before, snapshot("m1", 1, grant(A, "nvidia.com/gpu=0"), grant(A, "nvidia.com/gpu=1")));

        // restarted; meanwhile version 2 revoked gpu=1 on the topic
        GrantStore after = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        after.loadFromDisk();
        assertThat(after.loaded()).isFalse();
        apply(after, snapshot("m1", 2, grant(A, "nvidia.com/gpu=0")));
        assertThat(after.loaded()).as("read, but not yet to the end").isFalse();
        after.markCaughtUp();
        after.kafkaUnreachable(); // a later outage changes nothing once caught up

        assertThat(after.loaded()).isTrue();
        assertThat(after.holds(A, "nvidia.com/gpu=0")).isTrue();
        assertThat(after.holds(A, "nvidia.com/gpu=1")).isFalse();
    }

    @Test
    void aSnapshotFileLargerThanAnyRecordIsNotReadAndTheTopicDecides() throws Exception {
        // 12,000 grants: over GrantSnapshotFile.MAX_FILE_BYTES, which no record of the grants topic reaches
        Grant[] many = new Grant[12_000];
        for (int i = 0; i < many.length; i++) {
            many[i] = grant(java.util.UUID.nameUUIDFromBytes(("repo-" + i).getBytes()).toString(), "nvidia.com/gpu=0");
        }
        apply(new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier), snapshot("m1", 9, many));
        assertThat(Files.size(dir.resolve("grants-m1.json"))).isGreaterThan(GrantSnapshotFile.MAX_FILE_BYTES);

        GrantStore after = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        after.loadFromDisk();
        after.kafkaUnreachable();

        assertThat(after.loaded()).as("nothing from disk: device requests wait for the topic").isFalse();
        assertThat(after.holds(many[0].repoGuid(), "nvidia.com/gpu=0")).isFalse();
    }

    @Test
    void aSnapshotFileOfTheMostGrantsAMachineMayHoldIsRead() throws Exception {
        Grant[] most = new Grant[1_000]; // grants.max-grants-per-machine
        for (int i = 0; i < most.length; i++) {
            most[i] = grant(java.util.UUID.nameUUIDFromBytes(("repo-" + i).getBytes()).toString(), "nvidia.com/gpu=7");
        }
        apply(new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier), snapshot("m1", 9, most));

        GrantStore after = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        after.loadFromDisk();
        after.kafkaUnreachable();

        assertThat(after.loaded()).isTrue();
        assertThat(after.holds(most[999].repoGuid(), "nvidia.com/gpu=7")).isTrue();
    }

    @Test
    void anUnreadableSnapshotOnDiskIsIgnored() throws Exception {
        Files.writeString(dir.resolve("grants-m1.json"), "{not json");
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);

        store.loadFromDisk();

        assertThat(store.loaded()).isFalse();
    }

    @Test
    void aCopyOnDiskThatDoesNotVerifyIsIgnoredAndTheTopicDecides() throws Exception {
        GrantSnapshotFile file = new GrantSnapshotFile(dir, "m1");
        keep(file, snapshot("m1", 4, grant(A, "nvidia.com/gpu=0")));
        // what a repo that could write the state directory would leave there: every device, a version nothing outranks
        var signed = file.read().orElseThrow();
        byte[] forged = io.rediacc.gpu.contracts.events.EventJson.toBytes(snapshot("m1", 999_999_999_999L,
                grant(A, "nvidia.com/gpu=0"), grant(A, "nvidia.com/gpu=1")));
        file.write(new io.rediacc.gpu.contracts.signing.SignedRecord(signed.topic(), signed.key(), signed.ceTime(),
                signed.keyId(), signed.signature(), forged), 0);
        GrantStore store = new GrantStore("m1", file, verifier);
        store.loadFromDisk();
        store.kafkaUnreachable();
        assertThat(store.loaded()).as("nothing from disk is enforced").isFalse();
        assertThat(store.state().version()).isZero();

        assertThat(apply(store, snapshot("m1", 5, grant(A, "nvidia.com/gpu=0")))).isTrue();
        store.markCaughtUp();
        assertThat(store.holds(A, "nvidia.com/gpu=1")).isFalse();
        assertThat(GrantSnapshotDecoder.read(file.read().orElseThrow().value()).version()).as("the file is overwritten")
                .isEqualTo(5);
    }

    @Test
    void anUnsignedFileOfAnOlderReleaseIsIgnored() throws Exception {
        Files.write(dir.resolve("grants-m1.json"), io.rediacc.gpu.contracts.events.EventJson.toBytes(
                snapshot("m1", 7, grant(A, "nvidia.com/gpu=0"))));
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        store.loadFromDisk();
        store.kafkaUnreachable();

        assertThat(store.loaded()).isFalse();
        assertThat(store.holds(A, "nvidia.com/gpu=0")).isFalse();
    }

    @Test
    void aVerifiedCopyOnDiskOutranksAnOlderSnapshotThatIsTheTopicsNewest() {
        GrantSnapshotFile file = new GrantSnapshotFile(dir, "m1");
        keep(file, snapshot("m1", 36, grant(A, "nvidia.com/gpu=0")));
        GrantStore store = new GrantStore("m1", file, verifier);
        store.loadFromDisk();

        // compaction left a replay of version 35 (gpu=1 granted, since revoked) as the topic's newest offset
        assertThat(apply(store, snapshot("m1", 35, grant(A, "nvidia.com/gpu=0"), grant(A, "nvidia.com/gpu=1")))).isFalse();
        store.markCaughtUp();

        assertThat(store.state().version()).isEqualTo(36);
        assertThat(store.holds(A, "nvidia.com/gpu=1")).isFalse();
        assertThat(store.holds(A, "nvidia.com/gpu=0")).isTrue();
        assertThat(replays()).isEqualTo(1);
        assertThat(GrantSnapshotDecoder.read(file.read().orElseThrow().value()).version()).as("the copy is kept")
                .isEqualTo(36);
        // once in sync, a replay is dropped on arrival; grant-service's next version applies
        assertThat(apply(store, snapshot("m1", 35, grant(A, "nvidia.com/gpu=1")))).isFalse();
        assertThat(replays()).isEqualTo(2);
        assertThat(apply(store, snapshot("m1", 37))).isTrue();
    }

    @Test
    void aVerifiedCopyOnDiskIsKeptWhenTheTopicHoldsNothingOrOtherGrantsForItsVersion() {
        GrantSnapshotFile file = new GrantSnapshotFile(dir, "m1");
        keep(file, snapshot("m1", 7, grant(A, "nvidia.com/gpu=0")));
        GrantStore store = new GrantStore("m1", file, verifier);
        store.loadFromDisk();
        store.markCaughtUp();

        assertThat(store.state().version()).isEqualTo(7);
        assertThat(store.holds(A, "nvidia.com/gpu=0")).isTrue();
        assertThat(replays()).as("a topic without this machine's snapshot was rolled back").isEqualTo(1);

        GrantStore other = new GrantStore("m1", file, verifier);
        other.loadFromDisk();
        apply(other, snapshot("m1", 7, grant(FORK, "nvidia.com/gpu=0")));
        other.markCaughtUp();
        assertThat(other.holds(FORK, "nvidia.com/gpu=0")).isFalse();
        assertThat(other.holds(A, "nvidia.com/gpu=0")).isTrue();
        assertThat(replays()).isEqualTo(2);
    }

    @Test
    void aDiskSnapshotEqualToTheTopicsNewestIsKeptAndItsResigningRefreshesItsSignedTime() {
        GrantSnapshotFile file = new GrantSnapshotFile(dir, "m1");
        GrantSnapshot real = snapshot("m1", 4, grant(A, "nvidia.com/gpu=0"));
        file.write(GrantsTopic.signed(real, Instant.now().minusSeconds(3600)), 4);
        GrantStore store = new GrantStore("m1", file, verifier);
        store.loadFromDisk();
        Instant loaded = store.state().signedAt();
        apply(store, real);
        store.markCaughtUp();

        assertThat(store.state().version()).isEqualTo(4);
        assertThat(store.holds(A, "nvidia.com/gpu=0")).isTrue();
        assertThat(store.state().signedAt()).isAfter(loaded);
        assertThat(replays()).isZero();
    }

    @Test
    void aSnapshotWhoseSignatureIsOlderThanTheFreezeBoundIsFrozenUntilGrantServiceReSignsIt() {
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"), verifier);
        java.time.Duration bound = java.time.Duration.ofMinutes(30);
        assertThat(store.state().frozen(Instant.now(), bound)).as("no snapshot: nothing to freeze").isFalse();

        GrantSnapshot held = snapshot("m1", 3, grant(A, "nvidia.com/gpu=0"));
        store.apply(held, GrantsTopic.signed(held, Instant.now().minus(java.time.Duration.ofMinutes(31))));
        assertThat(store.state().frozen(Instant.now(), bound)).isTrue();

        store.apply(held, GrantsTopic.signed(held)); // the same version re-signed on grant-service's cadence
        assertThat(store.state().frozen(Instant.now(), bound)).isFalse();
        assertThat(store.state().version()).isEqualTo(3);
    }

    @Test
    void theStoresSharingKeepsTheGrantsTheDecoderSharedAlready() {
        String grant = "{\"repoGuid\":\"3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43\",\"repoName\":\"repo\",\"device\":\"nvidia.com/gpu=%d\","
                + "\"exclusive\":false,\"grantedBy\":\"op\",\"grantedAt\":\"2026-11-29T10:00:00Z\"}";
        GrantSnapshot read = GrantSnapshotDecoder.read(("{\"machine\":\"m1\",\"version\":3,\"grants\":[" + grant.formatted(0) + ","
                + grant.formatted(1) + "]}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        // the store's own sharing finds nothing left to share and keeps the same grants
        assertThat(GrantStore.shareRepeats(read).grants().get(1)).isSameAs(read.grants().get(1));
    }
}
