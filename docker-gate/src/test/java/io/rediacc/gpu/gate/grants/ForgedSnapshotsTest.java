package io.rediacc.gpu.gate.grants;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: on a broker anyone can write to, only grant-service grants. Forged snapshots on the real
 * broker — version Long.MAX unsigned, signed by another key, grant-service's signature over other bytes,
 * dated 20 minutes ahead — are dropped and counted by reason; the gate keeps its grants and still applies
 * grant-service's next snapshot (Long.MAX would have frozen it).
 */
class ForgedSnapshotsTest {

    @TempDir
    Path dir;

    @Test
    void onlySnapshotsSignedByGrantServiceAreApplied() throws Exception {
        String machine = "forged-" + System.nanoTime();
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        GrantStore store = new GrantStore(machine, new GrantSnapshotFile(dir, machine), GrantsTopic.verifier(metrics));
        try (GrantsFeed feed = new GrantsFeed(store, Map.of("bootstrap.servers", KafkaTestResource.broker().bootstrapServers()),
                "gate-forged-test", Duration.ofSeconds(10), new SignedSnapshots(GrantsTopic.keyPair().getPublic(), metrics))) {
            feed.start();
            Await.until("the feed caught up", Duration.ofSeconds(30), () -> store.state().caughtUp());
            long real = GrantsTopic.nextVersion();
            String guid = "55555555-5555-4555-8555-555555555555";
            GrantsTopic.publish(machine, real, GrantsTopic.grant(guid, "train", "nvidia.com/gpu=0"));
            Await.until("grant-service's snapshot applied", Duration.ofSeconds(20), () -> store.state().version() == real);

            Grant everything = new Grant(guid, "train", "nvidia.com/gpu=all", true, "mallory", Instant.now());
            byte[] max = EventJson.toBytes(new GrantSnapshot(machine, Long.MAX_VALUE, Instant.now(), List.of(everything)));
            GrantsTopic.publish(machine, max, null, Instant.now());
            GrantsTopic.publish(machine, max, SigningKeys.generate(), Instant.now());
            GrantsTopic.publish(machine, max, GrantsTopic.keyPair(), Instant.now().plus(Duration.ofMinutes(20)));
            Await.until("three forgeries counted", Duration.ofSeconds(20), () ->
                    count(metrics, "unsigned") >= 1 && count(metrics, "foreign-key") >= 1 && count(metrics, "future-time") >= 1);

            assertThat(store.state().version()).isEqualTo(real);
            assertThat(store.holds(guid, "nvidia.com/gpu=all")).isFalse();
            assertThat(store.holds(guid, "nvidia.com/gpu=0")).isTrue();
            // not frozen: grant-service's next snapshot (a revocation) still applies
            long next = GrantsTopic.nextVersion();
            GrantsTopic.publish(machine, next);
            Await.until("the revocation applied", Duration.ofSeconds(20), () -> store.state().version() == next);
            assertThat(store.holds(guid, "nvidia.com/gpu=0")).isFalse();
        }
    }

    /**
     * Issue 31: values grant-service's key signed (a leaked key, or a producer bug) that are not strict JSON —
     * two snapshots in one value, a key twice, a BOM, {@code "exclusive": 1} — are dropped and counted as
     * {@code invalid}; a monitoring consumer reading them with jq or a schema validator would fail or read
     * another grant set than the gate.
     */
    @Test
    void signedValuesThatAreNotStrictJsonAreDroppedAndCounted() throws Exception {
        String machine = "lenient-" + System.nanoTime();
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        GrantStore store = new GrantStore(machine, new GrantSnapshotFile(dir, machine), GrantsTopic.verifier(metrics));
        try (GrantsFeed feed = new GrantsFeed(store, Map.of("bootstrap.servers", KafkaTestResource.broker().bootstrapServers()),
                "gate-lenient-test", Duration.ofSeconds(10), new SignedSnapshots(GrantsTopic.keyPair().getPublic(), metrics))) {
            feed.start();
            Await.until("the feed caught up", Duration.ofSeconds(30), () -> store.state().caughtUp());
            String guid = "66666666-6666-4666-8666-666666666666";
            long real = GrantsTopic.nextVersion();
            GrantsTopic.publish(machine, real, GrantsTopic.grant(guid, "train", "nvidia.com/gpu=0"));
            Await.until("grant-service's snapshot applied", Duration.ofSeconds(20), () -> store.state().version() == real);

            String all = EventJson.toJson(new GrantSnapshot(machine, real + 1, Instant.now(),
                    List.of(new Grant(guid, "train", "nvidia.com/gpu=all", true, "mallory", Instant.now()))));
            String none = EventJson.toJson(new GrantSnapshot(machine, real + 2, Instant.now(), List.of()));
            List<String> lenient = List.of(
                    all + none,                                                        // trailing content
                    all.replace("\"version\":" + (real + 1), "\"version\":" + (real + 1) + ",\"version\":" + (real + 3)), // a key twice
                    "\uFEFF" + all,                                                     // a byte order mark
                    all.replace("\"exclusive\":true", "\"exclusive\":1"));             // a coerced scalar
            for (String value : lenient) {
                GrantsTopic.publish(machine, value.getBytes(java.nio.charset.StandardCharsets.UTF_8), GrantsTopic.keyPair(), Instant.now());
            }
            Await.until("four lenient values counted", Duration.ofSeconds(20), () -> count(metrics, "invalid") >= 4);

            assertThat(count(metrics, "invalid")).isEqualTo(4);
            assertThat(store.state().version()).isEqualTo(real);
            assertThat(store.holds(guid, "nvidia.com/gpu=all")).isFalse();
            assertThat(store.holds(guid, "nvidia.com/gpu=0")).isTrue();
        }
    }

    private static double count(SimpleMeterRegistry metrics, String reason) {
        var c = metrics.find("gate.grants.dropped").tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }
}
