package io.rediacc.gpu.gate.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.gate.grants.GrantSnapshotFile;
import io.rediacc.gpu.gate.grants.GrantStore;
import io.rediacc.gpu.gate.grants.GrantsFeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The gate's meters that deploy/monitoring reads, each with its HELP text (Micrometer description). */
class GateMetricsTest {

    @TempDir
    Path dir;

    @Test
    void everyGateMeterSaysWhatItIsAndTheFeedLagIsUnknownUntilTheFeedKnowsIt() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GrantStore store = new GrantStore("m1", new GrantSnapshotFile(dir, "m1"),
                io.rediacc.gpu.gate.support.GrantsTopic.verifier(registry));
        GateMetrics metrics = new GateMetrics(registry, store);
        GrantsFeed feed = new GrantsFeed(store, Map.of("bootstrap.servers", "127.0.0.1:1"), "gate-m1-test", Duration.ofSeconds(1),
                new io.rediacc.gpu.gate.grants.SignedSnapshots(io.rediacc.gpu.contracts.signing.SigningKeys.generate().getPublic(), registry));
        metrics.watch(feed); // never started: no poll yet

        GrantSnapshot seven = new GrantSnapshot("m1", 7, Instant.now(), List.of());
        store.apply(seven, io.rediacc.gpu.gate.support.GrantsTopic.signed(seven));
        metrics.refused("cdi-not-granted", "gpu-a");
        metrics.decisionNotPublished();

        assertThat(registry.get("gate.grants.applied.version").gauge().value()).isEqualTo(7.0);
        assertThat(registry.get("gate.grants.feed.lag.records").gauge().value()).isNaN();
        assertThat(registry.getMeters()).extracting(Meter::getId).extracting(Meter.Id::getName)
                .contains("gate.grants.feed.lag.records", "gate.grants.synced", "gate.grants.loaded", "gate.refusals",
                        "gate.decisions.unpublished");
        assertThat(registry.getMeters())
                .allSatisfy(m -> assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank());
    }
}
