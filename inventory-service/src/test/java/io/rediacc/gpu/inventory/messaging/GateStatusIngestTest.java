package io.rediacc.gpu.inventory.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.IngestCounter;
import io.rediacc.gpu.inventory.support.Inventories;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitGates;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.FleetApi.machine;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_A_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_B_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static io.rediacc.gpu.inventory.support.Inventories.grant;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

@QuarkusTest
@FleetResources
class GateStatusIngestTest {

    @Inject
    MeterRegistry registry;

    @Test
    void holdersAreWhatTheLiveGateReportsItEnforces() {
        String machine = Inventories.uniqueMachine("holders");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        FleetTopics.gateStatus(gate(machine, "gate-1", 7, Inventories.now(),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true),
                grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=all", false),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=all", false)));

        awaitMachine(machine);
        awaitGates(machine, 1);
        machine(machine)
                .body("gates[0].gateId", equalTo("gate-1"))
                .body("gates[0].appliedVersion", equalTo(7))
                .body("gates[0].state", equalTo("synced"))
                .body("gates[0].live", equalTo(true))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders.repo", contains("gpu-a"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders[0].exclusive", equalTo(true))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders[0].source", equalTo("gate"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders[0].gates", contains("gate-1"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=all' }.holders.repo", contains("gpu-a", "gpu-b"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=1' }.holders", empty());
    }

    /**
     * Two live gates of one machine: a repo both report is one holder naming both gates (sorted, exclusive when
     * either says so); a name they hold that the inventory does not define is listed as orphaned, by name.
     */
    @Test
    void twoGatesReportsMergeAndUndefinedNamesAreOrphaned() {
        String machine = Inventories.uniqueMachine("orphaned");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        FleetTopics.gateStatus(gate(machine, "gate-2", 3, Inventories.now(),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", false),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=9", true)));
        FleetTopics.gateStatus(gate(machine, "gate-1", 5, Inventories.now(),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true),
                grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=9", false),
                grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=7", false)));

        awaitMachine(machine);
        awaitGates(machine, 2);
        machine(machine)
                .body("gates.gateId", contains("gate-1", "gate-2"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders", hasSize(1))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders[0].repo", equalTo("gpu-a"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders[0].exclusive", equalTo(true))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders[0].gates", contains("gate-1", "gate-2"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=1' }.holders", empty())
                .body("orphaned.name", contains("nvidia.com/gpu=7", "nvidia.com/gpu=9"))
                .body("orphaned[0].holders.repo", contains("gpu-b"))
                .body("orphaned[1].holders.repo", contains("gpu-a", "gpu-b"))
                .body("orphaned[1].holders[0].exclusive", equalTo(true))
                .body("orphaned[1].holders[0].gates", contains("gate-2"))
                .body("orphaned[1].holders[1].gates", contains("gate-1"))
                .body("toolkit.state", equalTo("installed"))
                .body("specProblems", empty());
    }

    @Test
    void aGateSilentForThreeHeartbeatsNoLongerCountsAsHolding() {
        String machine = Inventories.uniqueMachine("silent");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        // heartbeat 10 s; last heard 31 s ago
        Instant lastHeard = Inventories.now().minusSeconds(31);
        FleetTopics.gateStatus(gate(machine, "gate-1", 3, lastHeard, grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true)),
                lastHeard);

        awaitMachine(machine);
        awaitGates(machine, 1);
        machine(machine)
                .body("gates[0].live", equalTo(false))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders", empty());
    }

    @Test
    void anOlderGateReportNeverOverwritesANewerOne() {
        String machine = Inventories.uniqueMachine("gate-order");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        Instant now = Inventories.now();
        FleetTopics.gateStatus(gate(machine, "gate-1", 9, now, grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=1", false)));
        awaitMachine(machine);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                machine(machine).body("gates[0].appliedVersion", equalTo(9)));

        IngestCounter ignored = IngestCounter.watch(registry, Topics.GATE_STATUS, "not-newer");
        FleetTopics.gateStatus(gate(machine, "gate-1", 8, now.minusSeconds(5), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true)));
        FleetTopics.gateStatus(gate(machine, "gate-1", 9, now, grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=1", false)), now);
        ignored.awaitAtLeast(2);

        machine(machine)
                .body("gates[0].appliedVersion", equalTo(9))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=1' }.holders.repo", contains("gpu-b"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders", empty());
    }

    private double replays() {
        var c = registry.find("inventory.input.dropped").tags("topic", Topics.GATE_STATUS, "reason", "replay").counter();
        return c == null ? 0 : c.count();
    }

    /**
     * Issue 31: a gate's statuses are ordered by their signed position (epoch, seq): a byte-for-byte replay of its
     * "loading v0" after "synced v7" is dropped as a replay, whatever its Kafka timestamp, and the gate stays synced.
     */
    @Test
    void aReplayedOldStatusDoesNotRollTheGateBackToLoading() {
        String machine = Inventories.uniqueMachine("gate-replay");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        long epoch = System.currentTimeMillis();
        io.rediacc.gpu.contracts.events.GateStatus loading = new io.rediacc.gpu.contracts.events.GateStatus(machine, "gate-1",
                0, io.rediacc.gpu.contracts.events.GateStatus.LOADING, java.util.List.of(), java.util.List.of(), 10, null)
                .at(epoch, 1, null, false);
        String key = Topics.gateStatusKey(machine, "gate-1");
        byte[] loadingBytes = io.rediacc.gpu.contracts.events.EventJson.toBytes(loading);
        var loadingHeaders = FleetTopics.signedHeaders(Topics.GATE_STATUS_TOPIC, key, loadingBytes, Inventories.now().minusSeconds(2));
        FleetTopics.withHeaders(Topics.GATE_STATUS_TOPIC, key, loadingBytes, loadingHeaders);
        FleetTopics.gateStatus(gate(machine, "gate-1", 7, Inventories.now(), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true))
                .at(epoch, 2, null, false));
        awaitMachine(machine);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine).body("gates[0].appliedVersion", equalTo(7)));
        double before = replays();

        FleetTopics.withHeaders(Topics.GATE_STATUS_TOPIC, key, loadingBytes, loadingHeaders); // byte for byte, stamped now
        await().atMost(Duration.ofSeconds(60)).until(() -> replays() > before);

        machine(machine)
                .body("gates[0].appliedVersion", equalTo(7))
                .body("gates[0].state", equalTo("synced"))
                .body("gates[0].live", equalTo(true))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders.repo", contains("gpu-a"));
    }

    /** Issue 31: liveness is the signed ce_time's: a status signed 40 s ago (heartbeat 10 s) and produced now is a dead gate's. */
    @Test
    void aStatusSignedLongAgoDoesNotMakeADeadGateLiveWhateverItsKafkaTimestamp() {
        String machine = Inventories.uniqueMachine("gate-dead");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        io.rediacc.gpu.contracts.events.GateStatus old = gate(machine, "gate-1", 4, Inventories.now().minusSeconds(40),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true)).at(System.currentTimeMillis(), 1, null, false);
        String key = Topics.gateStatusKey(machine, "gate-1");
        byte[] bytes = io.rediacc.gpu.contracts.events.EventJson.toBytes(old);
        // withHeaders leaves the Kafka timestamp to the producer: now
        FleetTopics.withHeaders(Topics.GATE_STATUS_TOPIC, key, bytes,
                FleetTopics.signedHeaders(Topics.GATE_STATUS_TOPIC, key, bytes, Inventories.now().minusSeconds(40)));
        awaitMachine(machine);
        awaitGates(machine, 1);
        machine(machine)
                .body("gates[0].live", equalTo(false))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders", empty());
    }

    @Test
    void aHeartbeatOfTheSameVersionKeepsItsGrantsAndKeepsTheGateLive() throws Exception {
        String machine = Inventories.uniqueMachine("gate-beat");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        Instant earlier = Inventories.now().minusSeconds(25);
        FleetTopics.gateStatus(gate(machine, "gate-1", 5, earlier, grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true)), earlier);
        awaitMachine(machine);
        awaitGates(machine, 1);
        java.util.List<String> grantRows = grantRowIds(machine);

        Instant now = Inventories.now();
        FleetTopics.gateStatus(gate(machine, "gate-1", 5, now, grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true)));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                machine(machine).body("gates[0].syncedAt", equalTo(now.toString())));
        machine(machine)
                .body("gates[0].live", equalTo(true))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders.repo", contains("gpu-a"));
        org.assertj.core.api.Assertions.assertThat(grantRowIds(machine)).isEqualTo(grantRows);
    }

    /** A gate taken down (its key's tombstone, signed by the removal path): its row goes, and its grants with it. */
    @Test
    void aGateTakenDownIsRemovedWithItsGrants() throws Exception {
        String machine = Inventories.uniqueMachine("gate-gone");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        Instant earlier = Inventories.now().minusSeconds(5);
        FleetTopics.gateStatus(gate(machine, "gate-1", 3, earlier, grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true)), earlier);
        FleetTopics.gateStatus(gate(machine, "gate-2", 4, earlier, grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=1", false)), earlier);
        awaitMachine(machine);
        awaitGates(machine, 2);
        org.assertj.core.api.Assertions.assertThat(grantRowIds(machine)).hasSize(2);

        FleetTopics.raw(Topics.GATE_STATUS_TOPIC, Topics.gateStatusKey(machine, "gate-1"), null);

        awaitGates(machine, 1);
        machine(machine)
                .body("gates[0].gateId", equalTo("gate-2"))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders", empty())
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=1' }.holders.repo", contains("gpu-b"));
        org.assertj.core.api.Assertions.assertThat(grantRowIds(machine)).as("gate-1's grant rows went with it").hasSize(1);
    }

    @Test
    void eachGatesVerifiedDaemonsAreShownAndFollowAHeartbeatThatChangesThem() {
        String machine = Inventories.uniqueMachine("gate-daemons");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        Instant synced = Inventories.now().minusSeconds(5);
        io.rediacc.gpu.contracts.events.DaemonStatus ok = new io.rediacc.gpu.contracts.events.DaemonStatus("gpu-a", GPU_A_GUID,
                "ok", null, synced);
        FleetTopics.gateStatus(withDaemons(gate(machine, "gate-1", 4, synced), ok), synced);
        awaitMachine(machine);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine)
                .body("gates[0].daemons[0].repoName", equalTo("gpu-a"))
                .body("gates[0].daemons[0].state", equalTo("ok")));

        // same version, same syncedAt: only the daemon changed (the gate publishes such a change at once)
        io.rediacc.gpu.contracts.events.DaemonStatus bad = new io.rediacc.gpu.contracts.events.DaemonStatus("gpu-a", GPU_A_GUID,
                "misconfigured", "DefaultRuntime is \"nvidia\", not runc", Inventories.now());
        FleetTopics.gateStatus(withDaemons(gate(machine, "gate-1", 4, synced), bad));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine)
                .body("gates[0].daemons[0].state", equalTo("misconfigured"))
                .body("gates[0].daemons[0].detail", equalTo("DefaultRuntime is \"nvidia\", not runc")));
    }

    private static io.rediacc.gpu.contracts.events.GateStatus withDaemons(io.rediacc.gpu.contracts.events.GateStatus s,
                                                                         io.rediacc.gpu.contracts.events.DaemonStatus... daemons) {
        return new io.rediacc.gpu.contracts.events.GateStatus(s.machine(), s.gateId(), s.appliedVersion(), s.state(), s.grants(),
                s.repos(), s.heartbeatSeconds(), s.syncedAt(), 0, null, true, java.util.List.of(daemons));
    }

    private static java.util.List<String> grantRowIds(String machine) throws java.sql.SQLException {
        java.util.List<String> ids = new java.util.ArrayList<>();
        try (var c = io.rediacc.gpu.testsupport.PostgresTestResource.current().connect(); var s = c.createStatement();
             var rs = s.executeQuery("select id from gate_grant where machine = '" + machine + "' order by id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        org.assertj.core.api.Assertions.assertThat(ids).isNotEmpty();
        return ids;
    }

    @Test
    void aRestartedGateThatIsLoadingAgainIsShownLoading() {
        String machine = Inventories.uniqueMachine("gate-restart");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        Instant synced = Inventories.now().minusSeconds(5);
        io.rediacc.gpu.contracts.events.GateStatus before = gate(machine, "gate-1", 4, synced,
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", false));
        FleetTopics.gateStatus(before, synced);
        awaitMachine(machine);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine).body("gates[0].state", equalTo("synced")));

        // same version and syncedAt (restored from disk), but not caught up with the grants topic yet
        FleetTopics.gateStatus(new io.rediacc.gpu.contracts.events.GateStatus(machine, "gate-1", 4,
                io.rediacc.gpu.contracts.events.GateStatus.LOADING, before.grants(), before.repos(), 10, synced));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine)
                .body("gates[0].state", equalTo("loading"))
                .body("gates[0].live", equalTo(true)));
    }

    @Test
    void aRevocationTheGateAppliedRemovesTheHolder() {
        String machine = Inventories.uniqueMachine("revoked");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        Instant now = Inventories.now();
        FleetTopics.gateStatus(gate(machine, "gate-1", 1, now.minusSeconds(2), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", false)));
        FleetTopics.gateStatus(gate(machine, "gate-1", 2, now));

        awaitMachine(machine);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine)
                .body("gates[0].appliedVersion", equalTo(2))
                .body("cdiDevices.find { it.name == 'nvidia.com/gpu=0' }.holders", empty()));
    }
}
