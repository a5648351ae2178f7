package io.rediacc.gpu.grants.messaging;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: records from Kafka are checked like REST input. Each forged record is dropped and
 * counted in grants.input.dropped, and the machine's state is what its real agent and gate said.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class InputBoundsTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    private final GrantApi api = new GrantApi();

    @Test
    void forgedInventoriesAreDroppedCountedAndChangeNothing() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "forged-inv", train);
        Fleet fleet = TestMachine.fleet();
        double before = dropped(Topics.INVENTORY);
        // dated an hour ahead: would pin "newer" so that the real agent is ignored
        fleet.send(Topics.INVENTORY, m.name, EventJson.toBytes(withDevices(m.name, Map.of(), Instant.now().plusSeconds(3600))), null);
        // another machine's key: a host speaking for m
        fleet.send(Topics.INVENTORY, "someone-else", EventJson.toBytes(withDevices(m.name, Map.of(), Instant.now())), null);
        // a list far over any real host: 6,000 devices
        Map<String, List<String>> many = new LinkedHashMap<>();
        for (int i = 0; i < 6000; i++) {
            many.put("example.com/d=" + i, List.of("/dev/d" + i));
        }
        fleet.send(Topics.INVENTORY, m.name, EventJson.toBytes(withDevices(m.name, many, Instant.now())), null);
        await(() -> dropped(Topics.INVENTORY) >= before + 3, "three inventories dropped");

        // the real agent's next inventory (a new repo) still applies: nothing was pinned; devices unchanged
        RepoInfo next = Fleet.repo("next");
        m.replaceRepos(api, train, next);
        api.awaitRepo(m.ref(next), next.guid());
        assertThat(api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isIn(201, 202);
        assertThat(api.grant(m.ref(train), "example.com/d=1", false, "0").statusCode()).isEqualTo(422);
    }

    @Test
    void forgedGateStatusesAreDroppedCountedAndNeverCountAsGates() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "forged-gate", train);
        Fleet fleet = TestMachine.fleet();
        double before = dropped(Topics.GATE_STATUS);
        Instant now = Instant.now();
        // a heartbeat of Integer.MAX keeps a gate "live" for ~200 years
        send(fleet, Topics.gateStatusKey(m.name, "eternal"), status(m.name, "eternal", Integer.MAX_VALUE, now), now);
        // syncedAt an hour ahead pins the gate's state
        send(fleet, Topics.gateStatusKey(m.name, "future"), status(m.name, "future", 10, now.plusSeconds(3600)), now);
        // a record timestamp an hour ahead
        send(fleet, Topics.gateStatusKey(m.name, "later"), status(m.name, "later", 10, now), now.plusSeconds(3600));
        // key and payload name different gates
        send(fleet, Topics.gateStatusKey(m.name, "other"), status(m.name, "mine", 10, now), now);
        // a gate id no gate may have (and that would grow the registry with junk)
        send(fleet, m.name + "/" + "g".repeat(300), status(m.name, "g".repeat(300), 10, now), now);
        // a tombstone whose key is not machine/gateId
        fleet.send(Topics.GATE_STATUS, "no-slash-here", null, null);
        await(() -> dropped(Topics.GATE_STATUS) >= before + 6, "six gate records dropped");

        fleet.publishGateStatus(m.name, "real", 0, List.of());
        await(() -> api.machineGrants(m.name).<List<String>>path("gates.gateId").contains("real"), "the real gate known");
        assertThat(api.machineGrants(m.name).<List<String>>path("gates.gateId")).containsExactly("real");
    }

    @Test
    void anInventoryWithNoDevicesAndNoReposIsStored() {
        // was "The Uni set is empty" and ~18 s of retries stalling the partition, never stored
        String machine = Fleet.uniqueMachine("empty");
        TestMachine.fleet().publishInventory(Fleet.inventory(machine, Map.of(), List.of()));
        api.awaitMachine(machine);
        assertThat(api.grant("any@" + machine, "nvidia.com/gpu=0", false, "0").<String>path("detail"))
                .contains("its inventory lists no repos");
    }

    private static void send(Fleet fleet, String key, GateStatus status, Instant timestamp) {
        fleet.send(Topics.GATE_STATUS, key, EventJson.toBytes(status), timestamp.toEpochMilli());
    }

    private static GateStatus status(String machine, String gateId, int heartbeat, Instant syncedAt) {
        return new GateStatus(machine, gateId, 0, GateStatus.SYNCED, List.of(), List.of(), heartbeat, syncedAt);
    }

    private static MachineInventory withDevices(String machine, Map<String, List<String>> devices, Instant generatedAt) {
        MachineInventory base = Fleet.inventory(machine, devices, List.of());
        return new MachineInventory(base.schemaVersion(), machine, base.platform(), base.agentVersion(), generatedAt,
                base.gpus(), base.cdiDevices(), null, null, base.repos(), List.of());
    }

    private double dropped(String topic) {
        String metrics = RestAssured.given().get(metricsUrl).asString();
        Matcher m = Pattern.compile("grants_input_dropped_total\\{[^}]*topic=\"" + Pattern.quote(topic) + "\"[^}]*} ([0-9.E]+)")
                .matcher(metrics);
        double sum = 0; // one series per drop reason
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        org.awaitility.Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(condition::getAsBoolean);
    }
}
