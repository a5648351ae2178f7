package io.rediacc.gpu.gate.messaging;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.gate.grants.GrantSnapshotFile;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.standin.StandInDockerd;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gate enforcing more grants than {@code gate.status.max-grants} still reports its applied
 * version: its status carries the count and digest, not the list. Listing 10,000 grants made a
 * ~1.9 MB record, which the producer refuses (1 MiB), so such a gate never reported at all.
 */
class GateStatusSizeTest {

    @TempDir
    Path dir;

    @Test
    void aGateOverTheCapPublishesASmallStatusWithCountAndDigest() throws Exception {
        String machine = "m-many-" + System.nanoTime();
        String gateId = "gate-many";
        long version = GrantsTopic.nextVersion();
        Instant at = Instant.parse("2026-11-29T10:00:00Z");
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            grants.add(new Grant("00000000-0000-4000-8000-%012d".formatted(i / 8), "repo-" + (i / 8),
                    "nvidia.com/gpu=" + (i % 8), false, "test", at));
        }
        // Too big for the grants topic as well: the gate takes it from its state directory, as after a restart.
        Path state = dir.resolve("state");
        Files.createDirectories(state);
        new GrantSnapshotFile(state, machine).write(GrantsTopic.signed(new GrantSnapshot(machine, version, at, grants)), version);
        StandInDockerd daemon = StandInDockerd.startTcp();
        Path manifest = dir.resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: %s
                repos:
                  - name: repo-0
                    guid: 00000000-0000-4000-8000-000000000000
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                """.formatted(machine, daemon.address()));

        try (StandaloneGates gates = new StandaloneGates();
             Gate gate = gates.start(manifest, state, gateId)) {
            Await.until("the snapshot on disk loaded", Duration.ofSeconds(30), () -> gate.grants().state().version() == version);

            ConsumerRecord<String, byte[]> record = GrantsTopic.await(Topics.GATE_STATUS, r ->
                    Topics.gateStatusKey(machine, gateId).equals(r.key())
                            && EventJson.fromBytes(r.value(), GateStatus.class).appliedVersion() == version,
                    Duration.ofSeconds(30));

            assertThat(record).as("a status record for version " + version).isNotNull();
            GateStatus status = EventJson.fromBytes(record.value(), GateStatus.class);
            assertThat(status.grantsListed()).isFalse();
            assertThat(status.grants()).isEmpty();
            assertThat(status.grantCount()).isEqualTo(10_000);
            assertThat(status.grantsDigest()).isEqualTo(GateStatus.digest(grants));
            assertThat(record.value().length).isLessThan(4096);
        } finally {
            daemon.close();
        }
    }
}
