package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With no grant traffic the feed waits on the broker instead of fetching: an idle gate used to
 * send an empty fetch twice a second (Kafka's 500 ms {@code fetch.max.wait.ms}), each one paying
 * for metrics and position checks on the feed thread, on every gate of every machine.
 */
class GrantsFeedIdleTest {

    @TempDir
    Path dir;

    @Test
    void anIdleFeedFetchesRarelyYetStillSeesANewSnapshotAtOnce() throws Exception {
        String machine = "idle-" + System.nanoTime();
        GrantStore store = new GrantStore(machine, new GrantSnapshotFile(dir, machine), GrantsTopic.verifier());
        // The gate's default Kafka API timeout (gate.kafka-api-timeout=10s).
        try (GrantsFeed feed = new GrantsFeed(store, Map.of("bootstrap.servers", KafkaTestResource.broker().bootstrapServers()),
                "gate-idle-test", Duration.ofSeconds(10),
                new SignedSnapshots(GrantsTopic.keyPair().getPublic(), new io.micrometer.core.instrument.simple.SimpleMeterRegistry()))) {
            feed.start();
            Await.until("the feed caught up", Duration.ofSeconds(30), () -> store.state().caughtUp());
            Await.until("the first fetch came back", Duration.ofSeconds(30), () -> feed.fetches() > 0);

            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long feedThread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("gate-grants-feed")).findFirst().orElseThrow().getId();
            long cpuBefore = threads.getThreadCpuTime(feedThread);
            long fetchesBefore = feed.fetches();
            // 500 ms holds give 8 in 4 s; 5 s holds give at most 1 (allow one more for timing); fails at the third
            await("at most 2 fetch responses in 4 idle seconds").during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(30))
                    .until(() -> feed.fetches() - fetchesBefore <= 2);
            long idleFetches = feed.fetches() - fetchesBefore;
            long cpuMillis = (threads.getThreadCpuTime(feedThread) - cpuBefore) / 1_000_000;
            System.out.printf("idle grants feed: %d fetch responses and %d ms of CPU in 4 s%n", idleFetches, cpuMillis);
            assertThat(idleFetches).isLessThanOrEqualTo(2);

            // The long hold does not delay a grant: the broker answers as soon as a record lands.
            long version = GrantsTopic.nextVersion();
            GrantsTopic.publish(machine, version,
                    GrantsTopic.grant("44444444-4444-4444-8444-444444444444", "r", "nvidia.com/gpu=0"));
            long published = System.nanoTime();
            Await.until("the snapshot applied", Duration.ofSeconds(10), () -> store.state().version() == version);
            assertThat(Duration.ofNanos(System.nanoTime() - published)).isLessThan(Duration.ofSeconds(4));
        }
    }
}
