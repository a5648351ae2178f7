package io.rediacc.gpu.inventory.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.IngestCounter;
import io.rediacc.gpu.inventory.support.Inventories;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitGates;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.FleetApi.machine;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/**
 * Issue 16: records are checked like REST input. A forged record — dated in the future, with a
 * heartbeat of Integer.MAX, under another machine's key, with a huge list — is rejected and
 * counted, and the machine keeps what its real agent and gate said.
 */
@QuarkusTest
@FleetResources
class ForgedRecordsTest {

    @Inject
    MeterRegistry registry;

    @Test
    void forgedInventoriesAreRejectedCountedAndChangeNothing() {
        String machine = Inventories.uniqueMachine("forged-inv");
        Instant now = Inventories.now();
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now));
        awaitMachine(machine);
        IngestCounter rejected = IngestCounter.watch(registry, Topics.INVENTORY, "rejected");

        // 20 minutes ahead, one card: would pin "newer" and hide the real agent's inventories
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now.plusSeconds(1200), 1, "forged"));
        // this machine's inventory under another machine's key
        FleetTopics.raw(Topics.INVENTORY_TOPIC, "someone-else",
                EventJson.toBytes(Inventories.nvidiaHost(machine, now.plusSeconds(1), 1, "forged")));
        // 6,000 repos
        MachineInventory real = Inventories.nvidiaHost(machine, now.plusSeconds(2));
        List<RepoInfo> many = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
            many.add(new RepoInfo("r" + i, real.repos().get(0).guid(), null));
        }
        FleetTopics.inventory(new MachineInventory(real.schemaVersion(), machine, real.platform(), real.agentVersion(),
                real.generatedAt(), real.gpus(), real.cdiDevices(), real.toolkit(), real.persistencedSocket(), many,
                List.of()));
        rejected.awaitAtLeast(3);

        // the real agent's next inventory still applies: nothing was pinned
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now.plusSeconds(5), 3, "NVIDIA A100-SXM4-40GB"));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(machine).body("gpus", hasSize(3)));
        machine(machine).body("generatedAt", equalTo(now.plusSeconds(5).toString()));
    }

    @Test
    void forgedGateStatusesAreRejectedAndNeverCountAsGates() {
        String machine = Inventories.uniqueMachine("forged-gate");
        Instant now = Inventories.now();
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now));
        awaitMachine(machine);
        IngestCounter rejected = IngestCounter.watch(registry, Topics.GATE_STATUS, "rejected");

        // a heartbeat of Integer.MAX: "live" for ~200 years
        FleetTopics.gateStatus(new GateStatus(machine, "eternal", 1, GateStatus.SYNCED, List.of(), List.of(),
                Integer.MAX_VALUE, now));
        // syncedAt 20 minutes ahead, and a record timestamp 20 minutes ahead: each would pin the gate's state
        FleetTopics.gateStatus(gate(machine, "future", 1, now.plusSeconds(1200)));
        FleetTopics.gateStatus(gate(machine, "later", 1, now), now.plusSeconds(1200));
        // key and payload name different gates
        FleetTopics.raw(Topics.GATE_STATUS_TOPIC, Topics.gateStatusKey(machine, "other"),
                EventJson.toBytes(gate(machine, "mine", 1, now)));
        rejected.awaitAtLeast(4);

        FleetTopics.gateStatus(gate(machine, "real", 2, now));
        awaitGates(machine, 1);
        machine(machine).body("gates.gateId", contains("real"));
    }
}
