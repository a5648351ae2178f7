package io.rediacc.gpu.inventory.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.IngestCounter;
import io.rediacc.gpu.inventory.support.Inventories;
import io.rediacc.gpu.inventory.support.TopicHistoryBeforeStart;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

@QuarkusTest
@FleetResources
class InventoryIngestTest {

    @Inject
    MeterRegistry registry;

    @Test
    void publishedInventoryAppearsWithItsGpusDevicesAndRepos() {
        String machine = Inventories.uniqueMachine("ingest");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));

        awaitMachine(machine)
                .body("platform", equalTo("local"))
                .body("agentVersion", equalTo("0.1.0"))
                .body("gpus", hasSize(2))
                .body("gpus[0].name", equalTo("NVIDIA A100-SXM4-40GB"))
                .body("gpus[0].driverVersion", equalTo("550.127.05"))
                .body("gpus[0].memoryMiB", equalTo(40960))
                .body("cdiDevices.name", contains("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all"))
                .body("cdiDevices[0].deviceNodes", contains("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"))
                .body("repos.name", contains("gpu-a", "gpu-b"))
                .body("repos[1].forkOf", equalTo(Inventories.GPU_A_GUID))
                .body("toolkit.state", equalTo("installed"))
                .body("stale", equalTo(false));
        asViewer().get("/api/v1/machines/{m}/gpus", machine).then().statusCode(200)
                .body("index", contains(0, 1))
                .body("[1].pciBusId", equalTo("00000000:08:00.0"));
    }

    @Test
    void aFreshInstanceRebuildsFromWhatTheCompactedTopicAlreadyHolds() {
        awaitMachine(TopicHistoryBeforeStart.MACHINE).body("gpus", hasSize(2));
    }

    @Test
    void rawInventoryIsServedExactlyAsTheMachineWroteIt() {
        String machine = Inventories.uniqueMachine("raw");
        // hand-written: odd spacing, key order and a field this service does not know
        String written = "{ \"schemaVersion\": 1, \"machine\": \"" + machine + "\",\n  \"platform\": \"wsl\","
                + " \"futureField\": {\"x\": [1, 2]},\n  \"generatedAt\": \"" + Instant.now() + "\","
                + " \"gpus\": [], \"cdiDevices\": [ {\"name\": \"nvidia.com/gpu=all\", \"deviceNodes\": [\"/dev/dxg\"]} ] }\n";
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, written.getBytes(StandardCharsets.UTF_8));

        awaitMachine(machine).body("platform", equalTo("wsl"));
        String served = asViewer().get("/api/v1/machines/{m}/inventory", machine).then().statusCode(200)
                .contentType("application/json").extract().asString();
        assertThat(served).isEqualTo(written);
    }

    @Test
    void theInventoryAsStoredOnTheMachineIsServedByteForByteFromTheRecordsSetupFile() throws Exception {
        String machine = Inventories.uniqueMachine("setupfile");
        // what setup wrote: pretty-printed, its own generatedAt, days before the heartbeat that carries it
        String file = "{\n  \"schemaVersion\" : 1,\n  \"machine\" : \"" + machine + "\",\n  \"platform\" : \"local\",\n"
                + "  \"generatedAt\" : \"2026-11-26T08:00:00Z\",\n  \"gpus\" : [ ],\n  \"cdiDevices\" : [ ]\n}\n";
        String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(file.getBytes(StandardCharsets.UTF_8)));
        String record = EventJson.mapper().writeValueAsString(java.util.Map.of("schemaVersion", 1, "machine", machine,
                "platform", "local", "generatedAt", Instant.now().toString(), "gpus", List.of(), "cdiDevices", List.of(),
                "repos", List.of(), "setupFile", java.util.Map.of("generatedAt", "2026-11-26T08:00:00Z", "sha256", sha,
                        "content", file, "bytes", file.length())));
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, record.getBytes(StandardCharsets.UTF_8));

        awaitMachine(machine);
        String served = asViewer().get("/api/v1/machines/{m}/inventory", machine).then().statusCode(200)
                .contentType("application/json").extract().asString();
        assertThat(served).isEqualTo(file);

    }

    @Test
    void replayingTheTopicChangesNothing() throws SQLException {
        String machine = Inventories.uniqueMachine("replay");
        MachineInventory inventory = Inventories.nvidiaHost(machine, Inventories.now());
        byte[] record = EventJson.toBytes(inventory);
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, record);
        awaitMachine(machine);
        List<String> before = rowsOf(machine);

        IngestCounter replays = IngestCounter.watch(registry, Topics.INVENTORY, "not-newer");
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, record);
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, record);
        replays.awaitAtLeast(2);

        assertThat(rowsOf(machine)).isEqualTo(before);
    }

    @Test
    void anOlderInventoryNeverOverwritesANewerOne() {
        String machine = Inventories.uniqueMachine("older");
        Instant now = Inventories.now();
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now, 4, "NVIDIA H100 80GB HBM3"));
        awaitMachine(machine).body("gpus", hasSize(4));

        IngestCounter ignored = IngestCounter.watch(registry, Topics.INVENTORY, "not-newer");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, now.minusSeconds(30), 1, "NVIDIA A10"));
        ignored.awaitAtLeast(1);

        asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200)
                .body("gpus", hasSize(4))
                .body("gpus[0].name", equalTo("NVIDIA H100 80GB HBM3"))
                .body("generatedAt", equalTo(now.toString()));
    }

    @Test
    void aNewerInventoryReplacesTheMachinesLists() {
        String machine = Inventories.uniqueMachine("newer");
        Instant first = Inventories.now().minusSeconds(60);
        FleetTopics.inventory(Inventories.nvidiaHost(machine, first, 2, "NVIDIA A100-SXM4-40GB"));
        awaitMachine(machine).body("gpus", hasSize(2));

        FleetTopics.inventory(Inventories.nvidiaHost(machine, first.plusSeconds(60), 1, "NVIDIA A100-SXM4-40GB"));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200)
                        .body("gpus", hasSize(1))
                        .body("cdiDevices.name", contains("nvidia.com/gpu=0", "nvidia.com/gpu=all")));
    }

    @Test
    void aHeartbeatRepeatingTheInventoryMovesItsAgeAndRewritesNoList() throws SQLException {
        String machine = Inventories.uniqueMachine("heartbeat");
        Instant first = Inventories.now().minusSeconds(60);
        FleetTopics.inventory(Inventories.nvidiaHost(machine, first));
        awaitMachine(machine);
        List<String> gpuRows = gpuRowIds(machine);

        Instant next = first.plusSeconds(60);
        FleetTopics.inventory(Inventories.nvidiaHost(machine, next));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                asViewer().get("/api/v1/machines/{m}", machine).then().body("generatedAt", equalTo(next.toString())));
        assertThat(gpuRowIds(machine)).as("the same rows, not rewritten ones").isEqualTo(gpuRows);
        assertThat(asViewer().get("/api/v1/machines/{m}/inventory", machine).then().extract().asString()).contains(next.toString());
    }

    @Test
    void recordsThatCanNeverApplyAreSkippedAndTheNextRecordStillApplies() {
        String machine = Inventories.uniqueMachine("poison");
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, "not json at all".getBytes(StandardCharsets.UTF_8));
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, EventJson.toBytes(Inventories.nvidiaHost("someone-else", Instant.now())));
        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, "{\"machine\":\"bad name!\"}".getBytes(StandardCharsets.UTF_8));
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));

        awaitMachine(machine).body("gpus", hasSize(2));
        asViewer().get("/api/v1/machines/someone-else").then().statusCode(404);
    }

    @Test
    void aTombstoneRemovesTheMachine() {
        String machine = Inventories.uniqueMachine("leaving");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now().minusSeconds(5)));
        awaitMachine(machine);

        FleetTopics.raw(Topics.INVENTORY_TOPIC, machine, null);

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(404));
        asViewer().get("/api/v1/machines/{m}/inventory", machine).then().statusCode(404);
    }

    private static List<String> gpuRowIds(String machine) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = PostgresTestResource.current().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select id from gpu where machine = '" + machine + "' order by id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        assertThat(ids).isNotEmpty();
        return ids;
    }

    private static List<String> rowsOf(String machine) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = PostgresTestResource.current().connect(); Statement s = c.createStatement()) {
            for (String table : List.of("machine where name", "machine_inventory_raw where machine", "gpu where machine",
                    "cdi_device where machine", "machine_repo where machine")) {
                try (ResultSet rs = s.executeQuery("select * from " + table + " = '" + machine + "' order by 1")) {
                    ResultSetMetaData meta = rs.getMetaData();
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder(table).append(':');
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            row.append(meta.getColumnName(i)).append('=').append(rs.getString(i)).append(' ');
                        }
                        rows.add(row.toString());
                    }
                }
            }
        }
        return rows;
    }
}
