package io.rediacc.gpu.inventory.dashboard;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.inventory.support.FleetApi;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_A_GUID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 31: the dashboard shows only what its author signed (contracts' RecordAuthority): grant snapshots and
 * grant events grant-service's, gate decisions their machine's. Unsigned and forged records are produced on the
 * real broker, dropped and counted in inventory.input.dropped, and never shown.
 */
@QuarkusTest
@FleetResources
class UnsignedActivityTest {

    private static final long FORGED_VERSION = 9_000_000_000_000_000_000L;

    @Inject
    MeterRegistry registry;

    @Test
    void anUnsignedSnapshotOfVersion9e18AndAMachineSignedOneNeverPinTheLatestVersion() {
        String machine = Inventories.uniqueMachine("unsigned-snap");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        awaitMachine(machine);
        Map<String, Double> before = dropped(Topics.GRANTS);
        FleetTopics.raw(Topics.GRANTS_TOPIC, machine, snapshot(machine, 5));

        byte[] forged = snapshot(machine, FORGED_VERSION);
        FleetTopics.withHeaders(Topics.GRANTS_TOPIC, machine, forged, headers(null, Topics.GRANTS_TOPIC, machine, forged));
        // the machine's own key is not grant-service's: a host cannot publish its own grants
        FleetTopics.withHeaders(Topics.GRANTS_TOPIC, machine, forged,
                headers(TestKeys.registered(machine), Topics.GRANTS_TOPIC, machine, forged));
        FleetTopics.raw(Topics.GRANTS_TOPIC, machine, snapshot(machine, 6));

        awaitDrops(Topics.GRANTS, before, Map.of("unsigned", 1, "foreign-key", 1));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(page("/api/v1/dashboard/machines/" + machine))
                .contains("Latest grant version</dt><dd>6</dd>"));
        assertThat(page("/api/v1/dashboard/machines/" + machine)).doesNotContain(Long.toString(FORGED_VERSION));
    }

    @Test
    void anUnsignedGrantedEventAndAnUnsignedRefusalNeverShowInARepoHistory() {
        String machine = Inventories.uniqueMachine("unsigned-event");
        String repo = "forged-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, Double> eventsBefore = dropped(Topics.GRANT_EVENTS);
        Map<String, Double> decisionsBefore = dropped(Topics.GATE_DECISIONS);

        byte[] unsignedGrant = event(machine, repo, "nvidia.com/gpu=3", "mallory");
        FleetTopics.withHeaders(Topics.GRANT_EVENTS_TOPIC, machine, unsignedGrant,
                headers(null, Topics.GRANT_EVENTS_TOPIC, machine, unsignedGrant));
        byte[] machineSignedGrant = event(machine, repo, "nvidia.com/gpu=4", "mallory");
        FleetTopics.withHeaders(Topics.GRANT_EVENTS_TOPIC, machine, machineSignedGrant,
                headers(TestKeys.registered(machine), Topics.GRANT_EVENTS_TOPIC, machine, machineSignedGrant));
        byte[] unsignedRefusal = decision(machine, repo, "a forged refusal of " + repo);
        FleetTopics.withHeaders(Topics.GATE_DECISIONS_TOPIC, machine, unsignedRefusal,
                headers(null, Topics.GATE_DECISIONS_TOPIC, machine, unsignedRefusal));
        // what grant-service and the machine's gate really signed, after the forgeries on the same partitions
        FleetTopics.raw(Topics.GRANT_EVENTS_TOPIC, machine, event(machine, repo, "nvidia.com/gpu=1", "alice"));
        FleetTopics.raw(Topics.GATE_DECISIONS_TOPIC, machine, decision(machine, repo, "a real refusal of " + repo));

        awaitDrops(Topics.GRANT_EVENTS, eventsBefore, Map.of("unsigned", 1, "foreign-key", 1));
        awaitDrops(Topics.GATE_DECISIONS, decisionsBefore, Map.of("unsigned", 1));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(page("/api/v1/dashboard/repos/" + repo + "@" + machine))
                .contains("<code>nvidia.com/gpu=1</code>").contains("a real refusal of " + repo));
        assertThat(page("/api/v1/dashboard/repos/" + repo + "@" + machine))
                .doesNotContain("nvidia.com/gpu=3").doesNotContain("nvidia.com/gpu=4").doesNotContain("mallory")
                .doesNotContain("a forged refusal");
    }

    private static String page(String path) {
        return FleetApi.asViewer().get(path).then().statusCode(200).extract().asString();
    }

    private static byte[] snapshot(String machine, long version) {
        return EventJson.toBytes(new GrantSnapshot(machine, version, Instant.now(), List.of()));
    }

    private static byte[] event(String machine, String repo, String device, String actor) {
        return EventJson.toBytes(new GrantEvent(UUID.randomUUID().toString(), GrantEvent.Type.GRANTED, machine, GPU_A_GUID,
                repo, device, false, actor, null, 1L, Instant.now()));
    }

    private static byte[] decision(String machine, String repo, String message) {
        return EventJson.toBytes(new GateDecision(machine, "gate-1", repo, GPU_A_GUID, "POST", "/containers/create",
                "privileged", null, message, "remove --privileged", Instant.now()));
    }

    /** CloudEvents headers as a forger writes them: signed with {@code by}, or unsigned when null. */
    private static Map<String, byte[]> headers(KeyPair by, Topics.TopicSpec topic, String key, byte[] value) {
        Map<String, byte[]> h = new LinkedHashMap<>(CloudEventHeaders.of(topic, "/forger", key, UUID.randomUUID().toString(),
                Instant.now()));
        if (by != null) {
            new RecordSigner(by.getPrivate(), by.getPublic()).sign(topic.name(), key, h, value);
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
