package io.rediacc.gpu.inventory.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.rediacc.gpu.inventory.support.TestKeys;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.FleetApi.machine;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/**
 * Issue 16: a GPU host speaks only for itself. Each forged record class is produced on the real broker,
 * dropped, counted by reason in inventory.input.dropped, and the read model keeps what the machine's
 * registered agent and gate said.
 */
@QuarkusTest
@FleetResources
class SignedRecordsTest {

    @Inject
    MeterRegistry registry;

    @Test
    void forgedInventoriesAreDroppedByReasonAndChangeNothing() {
        String machine = Inventories.uniqueMachine("signed-inv");
        String other = Inventories.uniqueMachine("signed-other");
        Instant now = Inventories.now();
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now));
        FleetTopics.inventory(Inventories.nvidiaHost(other, now));
        awaitMachine(machine);
        awaitMachine(other);
        Map<String, Double> before = dropped(Topics.INVENTORY);
        byte[] forged = EventJson.toBytes(Inventories.nvidiaHost(machine, now.plusSeconds(1), 1, "forged"));

        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, forged, headers(null, machine, forged, Instant.now()));
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, forged, headers(TestKeys.of(other), machine, forged, Instant.now()));
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, forged,
                headers(TestKeys.of(machine), machine, EventJson.toBytes(Inventories.nvidiaHost(machine, now)), Instant.now()));
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, forged,
                headers(TestKeys.of(machine), machine, forged, Instant.now().plus(Duration.ofMinutes(20))));
        String stranger = Inventories.uniqueMachine("unregistered");
        byte[] strangers = EventJson.toBytes(Inventories.nvidiaHost(stranger, now));
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, stranger, strangers, headers(TestKeys.of(stranger), stranger, strangers, Instant.now()));
        // a tombstone signed by the machine itself, not by the removal path
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, null, headers(TestKeys.of(machine), machine, null, Instant.now()));
        // other's key over machine's inventory under other's record key
        FleetTopics.raw(Topics.INVENTORY_TOPIC, other, forged);

        awaitDrops(Topics.INVENTORY, before, Map.of("unsigned", 1, "foreign-key", 1, "bad-signature", 1, "future-time", 1,
                "unregistered-machine", 1, "foreign-tombstone", 1, "key-mismatch", 1));
        machine(machine).body("gpus", hasSize(2)).body("generatedAt", equalTo(now.toString()));
        asViewer().get("/api/v1/machines/{m}", stranger).then().statusCode(404);
    }

    /**
     * Issue 31: values the machine's registered key signed are still read strictly — two inventories in
     * one value, a key twice, a BOM — and dropped as invalid; the read model keeps the last good one.
     */
    @Test
    void signedValuesThatAreNotStrictJsonAreDroppedAndCounted() {
        String machine = Inventories.uniqueMachine("strict-inv");
        Instant now = Inventories.now();
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now));
        awaitMachine(machine);
        Map<String, Double> before = dropped(Topics.INVENTORY);
        String json = new String(EventJson.toBytes(Inventories.nvidiaHost(machine, now.plusSeconds(1), 1, "lenient")),
                java.nio.charset.StandardCharsets.UTF_8);

        for (String lenient : java.util.List.of(json + json, json.replaceFirst("\\{", "{\"machine\":\"" + machine + "\","),
                "\uFEFF" + json, json.replaceFirst("\"schemaVersion\":(\\d+)", "\"schemaVersion\":\"$1\""))) {
            byte[] value = lenient.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, value, headers(TestKeys.of(machine), machine, value, Instant.now()));
        }

        awaitDrops(Topics.INVENTORY, before, Map.of("invalid", 4));
        machine(machine).body("gpus", hasSize(2)).body("generatedAt", equalTo(now.toString()));
    }

    @Test
    void aHostCannotForgeOrEraseAnotherMachinesGate() {
        String victim = Inventories.uniqueMachine("signed-victim");
        String attacker = Inventories.uniqueMachine("signed-attacker");
        Instant now = Inventories.now();
        FleetTopics.inventory(Inventories.nvidiaHost(victim, now));
        FleetTopics.inventory(Inventories.nvidiaHost(attacker, now));
        awaitMachine(victim);
        FleetTopics.gateStatus(gate(victim, "real", 1, now));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> machine(victim).body("gates.gateId", contains("real")));
        Map<String, Double> before = dropped(Topics.GATE_STATUS);

        byte[] ghost = EventJson.toBytes(gate(victim, "ghost", 9, now));
        String ghostKey = Topics.gateStatusKey(victim, "ghost");
        FleetTopics.withHeaders(Topics.GATE_STATUS_TOPIC, ghostKey, ghost, headers(TestKeys.registered(attacker), ghostKey, ghost,
                Instant.now(), Topics.GATE_STATUS));
        String realKey = Topics.gateStatusKey(victim, "real");
        FleetTopics.withHeaders(Topics.GATE_STATUS_TOPIC, realKey, null, headers(TestKeys.of(attacker), realKey, null,
                Instant.now(), Topics.GATE_STATUS));

        awaitDrops(Topics.GATE_STATUS, before, Map.of("foreign-key", 1, "foreign-tombstone", 1));
        machine(victim).body("gates.gateId", contains("real"));
    }

    private static Map<String, byte[]> headers(KeyPair by, String key, byte[] signedValue, Instant time) {
        return headers(by, key, signedValue, time, Topics.INVENTORY);
    }

    private static Map<String, byte[]> headers(KeyPair by, String key, byte[] signedValue, Instant time, String topic) {
        Map<String, byte[]> h = new LinkedHashMap<>(CloudEventHeaders.of(Topics.byName(topic), "/forger", key,
                UUID.randomUUID().toString(), time));
        if (by != null) {
            new RecordSigner(by.getPrivate(), by.getPublic()).sign(topic, key, h, signedValue);
        }
        return h;
    }

    private void awaitDrops(String topic, Map<String, Double> before, Map<String, Integer> wanted) {
        await().atMost(Duration.ofSeconds(30)).until(() -> wanted.entrySet().stream().allMatch(e ->
                dropped(topic).getOrDefault(e.getKey(), 0.0) >= before.getOrDefault(e.getKey(), 0.0) + e.getValue()));
    }

    private Map<String, Double> dropped(String topic) {
        Map<String, Double> byReason = new LinkedHashMap<>();
        for (Counter c : registry.find("inventory.input.dropped").tag("topic", topic).counters()) {
            byReason.merge(c.getId().getTag("reason"), c.count(), Double::sum);
        }
        return byReason;
    }
}
