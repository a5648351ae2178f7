package io.rediacc.gpu.grants.messaging;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.testing.Database;
import io.rediacc.gpu.grants.testing.FakeGate;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 16: one record Kafka refuses does not stop the fleet's grants; a refusal's audit event stays small. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class ParkedRecordTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    private final GrantApi api = new GrantApi();

    private static String kafka() {
        return KafkaTestResource.broker().bootstrapServers();
    }

    @Test
    void anOversizedRecordIsParkedWhileOtherMachinesGrantsFlowAndItsMachineWaitsBehindIt() throws Exception {
        RepoInfo train = Fleet.repo("train");
        TestMachine a = TestMachine.withRepos(api, "parked-a", train);
        TestMachine b = TestMachine.withRepos(api, "parked-b", train);
        // a 2 MB row, as an older release or a lowered topic limit would leave: over max.request.size and max.message.bytes
        long oversized;
        try (Connection c = PostgresTestResource.current().connect();
             PreparedStatement s = c.prepareStatement("insert into outbox (aggregatetype, aggregateid, type, payload, headers,"
                     + " created_at) values (?, ?, ?, ?, '{}', now()) returning id")) {
            s.setString(1, Topics.GRANT_EVENTS);
            s.setString(2, a.name);
            s.setString(3, Topics.GRANT_EVENTS_TOPIC.cloudEventType());
            s.setString(4, "{\"padding\":\"" + "x".repeat(2_000_000) + "\"}");
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                oversized = rs.getLong(1);
            }
        }
        await(() -> parked().stream().anyMatch(p -> ((Number) p.get("id")).longValue() == oversized), "row parked");
        Map<String, Object> row = parked().stream().filter(p -> ((Number) p.get("id")).longValue() == oversized)
                .findFirst().orElseThrow();
        assertThat(row.get("machine")).isEqualTo(a.name);
        assertThat((String) row.get("reason")).contains("RecordTooLargeException");

        // machine A's later changes wait behind its parked row: recorded, not published
        assertThat(api.grant(a.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isEqualTo(202);
        // machine B's grant is published and enforced by its gate meanwhile
        try (FakeGate gate = FakeGate.start(kafka(), b.name, "gate")) {
            await(() -> api.machineGrants(b.name).<List<Boolean>>path("gates.live").contains(true), "B's gate live");
            Response granted = api.grant(b.ref(train), "nvidia.com/gpu=1", false, "15s");
            assertThat(granted.statusCode()).as(granted.asString()).isEqualTo(201);
            assertThat(gate.appliedVersion()).isEqualTo(1);
        }
        try (Connection c = PostgresTestResource.current().connect()) {
            assertThat(new Database(c).pendingOutboxRows(a.name)).isEqualTo(2); // A's snapshot and event, in order
        }
        Response ready = RestAssured.given().get("/q/health/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.asString()).contains("parked").contains(a.name).contains("/api/v1/outbox/parked");
        String scrape = RestAssured.given().get(metricsUrl).asString();
        assertThat(scrape).containsPattern("grants_outbox_parked(_records_total)? [1-9]");
        // B's records were acknowledged by the broker, each timed from the producer's hands to the acknowledgement
        assertThat(scrape).contains("# HELP grants_outbox_acknowledgement_seconds From a record handed to the Kafka producer")
                .containsPattern("grants_outbox_acknowledgement_seconds_count(\\{[^}]*\\})? [1-9]")
                .containsPattern("grants_outbox_acknowledgement_seconds_sum(\\{[^}]*\\})? [0-9.E-]*[1-9]");
        // operators only; a viewer may not even look
        assertThat(api.as(GrantApi.VIEWER_TOKEN).request().get("/api/v1/outbox/parked").statusCode()).isEqualTo(403);
        assertThat(api.request().get("/api/v1/outbox/parked/" + oversized).asString()).startsWith("{\"padding\"");

        assertThat(api.request().delete("/api/v1/outbox/parked/" + oversized).statusCode()).isEqualTo(204);
        assertThat(api.request().delete("/api/v1/outbox/parked/" + oversized).<String>path("error")).isEqualTo("not-parked");
        assertThat(api.request().delete("/api/v1/outbox/parked/abc").<String>path("error")).isEqualTo("invalid-id");
        // dropped: A's held records flow, in order, and the service is ready again
        try (Connection c = PostgresTestResource.current().connect()) {
            Database db = new Database(c);
            await(() -> {
                try {
                    return db.pendingOutboxRows(a.name) == 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "A's held rows published");
        }
        await(() -> RestAssured.given().get("/q/health/ready").statusCode() == 200, "ready again");
    }

    @Test
    void aRefusalOnAMachineWithManyLongNamesWritesASmallAuditEvent() {
        RepoInfo train = Fleet.repo("train");
        Map<String, List<String>> devices = new TreeMap<>();
        for (int i = 0; i < 200; i++) { // 200 x 180 characters: the old reason listed all, 36 KB
            devices.put("vendor.example.com/accelerator=" + "partition-".repeat(15) + i, List.of("/dev/accel" + i));
        }
        String machine = Fleet.uniqueMachine("many-names");
        TestMachine.fleet().publishInventory(Fleet.inventory(machine, devices, List.of(train)));
        api.awaitMachine(machine);

        Response refused = api.grant(train.name() + "@" + machine,
                "vendor.example.com/accelerator=" + "partition-".repeat(15) + "99x", false, "0");
        assertThat(refused.statusCode()).isEqualTo(422);
        assertThat(refused.<List<String>>path("grantable")).hasSize(200); // the caller still gets every name

        List<ConsumerRecord<String, byte[]>> events = TopicReader.readUntil(kafka(), Topics.GRANT_EVENTS, machine,
                read -> !read.isEmpty(), Duration.ofSeconds(20));
        GrantEvent event = EventJson.fromBytes(events.get(0).value(), GrantEvent.class);
        assertThat(event.type()).isEqualTo(GrantEvent.Type.REFUSED);
        assertThat(events.get(0).value().length).isLessThan(2048);
        assertThat(event.reason()).contains("among 200 grantable names").contains("partition-99");
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> parked() {
        return api.request().get("/api/v1/outbox/parked").then().statusCode(200).extract().as(List.class);
    }

    private static void await(BooleanSupplier condition, String what) {
        org.awaitility.Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(condition::getAsBoolean);
    }
}
