package io.rediacc.gpu.inventory.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.inventory.support.FleetApi;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.rediacc.gpu.inventory.support.TestKeys;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/**
 * Issue 31: a machine's removal (grant-service's signed tombstone) is final in this service too. It revokes the
 * machine's key at once on every replica (no key cache outlives it), so neither the machine's later records nor
 * replays of its earlier ones bring it back; after a new registration, only what it signs afterwards counts.
 */
@QuarkusTest
@FleetResources
class MachineRemovalTest {

    @Inject
    MeterRegistry registry;

    @Test
    void aRemovalRevokesTheKeyAndNothingSignedBeforeTheNewRegistrationBringsTheMachineBack() {
        String machine = Inventories.uniqueMachine("removed");
        byte[] old = EventJson.toBytes(Inventories.nvidiaHost(machine, Inventories.now()));
        Map<String, byte[]> oldHeaders = FleetTopics.signedHeaders(Topics.INVENTORY_TOPIC, machine, old, Instant.now());
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, old, oldHeaders);
        awaitMachine(machine); // its key was just looked up: a cache would hold it now

        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, null); // the removal path's tombstone
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> FleetApi.asViewer().get("/api/v1/machines/{m}", machine)
                .then().statusCode(404));
        given().auth().oauth2(FleetApi.OPERATOR_TOKEN).get("/api/v1/machines/{m}/key", machine).then().statusCode(404);
        org.assertj.core.api.Assertions.assertThat(pendingKafkaUserRemovals(machine))
                .as("a service that does not manage Kafka users (the default) leaves the machine's user alone").isZero();

        // the machine, still running, signs with its revoked key; its old inventory is replayed
        Map<String, Double> inventoryBefore = dropped(Topics.INVENTORY);
        Map<String, Double> statusBefore = dropped(Topics.GATE_STATUS);
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now().plusSeconds(1)));
        FleetTopics.gateStatus(gate(machine, "gate-1", 1, Inventories.now()));
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, old, oldHeaders);
        awaitDrops(Topics.INVENTORY, inventoryBefore, Map.of("unregistered-machine", 2));
        awaitDrops(Topics.GATE_STATUS, statusBefore, Map.of("unregistered-machine", 1));
        FleetApi.asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(404);

        // rdc machine setup registers the same key again: what it signed before still changes nothing
        given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                .body(Map.of("publicKey", SigningKeys.publicPem(TestKeys.of(machine).getPublic())))
                .put("/api/v1/machines/{m}/key", machine).then().statusCode(200);
        Map<String, Double> replayBefore = dropped(Topics.INVENTORY);
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, old, oldHeaders);
        awaitDrops(Topics.INVENTORY, replayBefore, Map.of("replay", 1));
        FleetApi.asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(404);

        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now().plusSeconds(2)));
        awaitMachine(machine);
    }

    /**
     * Issue 31: the removal's tombstone, validly signed by grant-service and kept on the compacted topic, produced
     * again byte for byte after the machine rejoined (a new registration, a fresh inventory) is a removal from before
     * that registration: it is dropped as a replay, counted, and the machine stays.
     */
    @Test
    void aReplayedRemovalTombstoneDoesNotRemoveAMachineThatRejoined() {
        String machine = Inventories.uniqueMachine("rejoined");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        awaitMachine(machine);

        // the removal path's tombstone, signed by grant-service's key: kept to be produced again later
        Map<String, byte[]> removal = FleetTopics.signedHeaders(Topics.INVENTORY_TOPIC, machine, null, Instant.now());
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, null, removal);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> FleetApi.asViewer().get("/api/v1/machines/{m}", machine)
                .then().statusCode(404));

        // the machine rejoins: rdc machine setup registers its key again, the machine publishes
        given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                .body(Map.of("publicKey", SigningKeys.publicPem(TestKeys.of(machine).getPublic())))
                .put("/api/v1/machines/{m}/key", machine).then().statusCode(200);
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now().plusSeconds(1)));
        awaitMachine(machine);

        Map<String, Double> before = dropped(Topics.INVENTORY);
        FleetTopics.withHeaders(Topics.INVENTORY_TOPIC, machine, null, removal); // the old removal, byte for byte
        awaitDrops(Topics.INVENTORY, before, Map.of("replay", 1));
        FleetApi.asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200);
        given().auth().oauth2(FleetApi.OPERATOR_TOKEN).get("/api/v1/machines/{m}/key", machine).then().statusCode(200);
    }

    private static int pendingKafkaUserRemovals(String machine) {
        try (java.sql.Connection c = io.rediacc.gpu.testsupport.PostgresTestResource.current().connect();
             java.sql.PreparedStatement s = c.prepareStatement("select count(*) from kafka_user_removals where machine = ?")) {
            s.setString(1, machine);
            try (java.sql.ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
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
