package io.rediacc.gpu.inventory.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_A_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_B_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static io.rediacc.gpu.inventory.support.Inventories.grant;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.hasSize;

/**
 * The answers the rdc CLI is tested with (recorded in {@code cli/src/test/resources/recorded/
 * inventory-service/}) must be answers this service really gives: every field of a recording, with
 * its JSON type, is in the real answer, and the error answers are word for word the same. When
 * this test fails, the CLI's tests stand on answers that no longer exist: re-record them.
 */
@QuarkusTest
@FleetResources
class CliContractTest {

    static final Path RECORDINGS = Path.of(System.getProperty("basedir", "."))
            .resolve("../cli/src/test/resources/recorded/inventory-service").normalize();

    @Test
    void theRecordedMachineDetailHasTheShapeOfARealOne() {
        String machine = Inventories.uniqueMachine("contract");
        MachineInventory host = Inventories.nvidiaHost(machine, Inventories.now());
        FleetTopics.inventory(new MachineInventory(host.schemaVersion(), machine, host.platform(), host.agentVersion(),
                host.generatedAt(), host.gpus(), host.cdiDevices(), host.toolkit(), host.persistencedSocket(),
                List.of(new RepoInfo("gpu-a", GPU_A_GUID, null), new RepoInfo("gpu-b", GPU_B_GUID, GPU_A_GUID)), List.of()));
        GateStatus reported = gate(machine, "gate-1", 12, Inventories.now(),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true),
                grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=all", false));
        FleetTopics.gateStatus(new GateStatus(reported.machine(), reported.gateId(), reported.appliedVersion(),
                reported.state(), reported.grants(), reported.repos(), reported.heartbeatSeconds(), reported.syncedAt(),
                0, null, true, List.of(new DaemonStatus("gpu-a", GPU_A_GUID, DaemonStatus.OK, null, Inventories.now()),
                new DaemonStatus("gpu-b", GPU_B_GUID, DaemonStatus.MISCONFIGURED, "DefaultRuntime is \"nvidia\", not runc",
                        Inventories.now()))));
        awaitMachine(machine);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                asViewer().get("/api/v1/machines/{m}", machine).then().body("gates", hasSize(1)));

        JsonNode real = json(asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200).extract().asString());

        assertShapeCovers(recording("machine-gpu-host-1.json"), real);
    }

    @Test
    void theRecordedRawInventoryIsServedBackExactlyAndItsDetailHasTheRecordedShape() {
        String raw = recordingText("inventory-wsl-gpu.json");
        FleetTopics.raw(Topics.INVENTORY_TOPIC, "wsl-gpu", raw.getBytes(StandardCharsets.UTF_8));
        // a gate that went silent long ago, as in the recording
        var lastHeard = EventJson.fromJson(raw, MachineInventory.class).generatedAt();
        FleetTopics.gateStatus(new GateStatus("wsl-gpu", "gate-1", 3, GateStatus.SYNCED, List.of(), List.of(), 10, lastHeard),
                lastHeard);
        awaitMachine("wsl-gpu");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                asViewer().get("/api/v1/machines/wsl-gpu").then().body("gates", hasSize(1)));

        String served = asViewer().get("/api/v1/machines/wsl-gpu/inventory").then().statusCode(200).extract().asString();
        assertThat(served).isEqualTo(raw);
        JsonNode real = json(asViewer().get("/api/v1/machines/wsl-gpu").then().statusCode(200).extract().asString());
        assertShapeCovers(recording("machine-wsl-gpu.json"), real);
        assertThat(real.get("stale").asBoolean()).isTrue();
        assertThat(real.at("/gates/0/live").asBoolean()).isFalse();
    }

    @Test
    void theRecordedMachinePageHasTheShapeOfARealOne() {
        String machine = Inventories.uniqueMachine("contract-page");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        awaitMachine(machine);

        JsonNode real = json(asViewer().queryParam("size", 2).get("/api/v1/machines").then().statusCode(200).extract().asString());

        assertShapeCovers(recording("machines-page-0.json"), real);
        assertShapeCovers(recording("machines-empty.json"), real);
    }

    @Test
    void theRecordedErrorsAreWordForWordTheServicesButTheirRequestId() {
        assertThat(withoutRequestId(asViewer().get("/api/v1/machines/nope").then().statusCode(404).extract().asString()))
                .isEqualTo(withoutRequestId(recordingText("error-unknown-machine.json")));
        assertThat(withoutRequestId(asViewer().queryParam("size", 501).get("/api/v1/machines").then().statusCode(400).extract().asString()))
                .isEqualTo(withoutRequestId(recordingText("error-invalid-parameter.json")));
        assertThat(withoutRequestId(given().get("/api/v1/machines").then().statusCode(401).extract().asString()))
                .isEqualTo(withoutRequestId(recordingText("error-unauthorized.json")));
    }

    /** An error answer without its requestId, which differs on every request. */
    static JsonNode withoutRequestId(String body) {
        JsonNode node = json(body);
        assertThat(node.path("requestId").asText()).as("the answer's requestId").isNotBlank();
        ((com.fasterxml.jackson.databind.node.ObjectNode) node).remove("requestId");
        return node;
    }

    @Test
    void theShapeCheckCatchesAMissingFieldAndAChangedType() {
        JsonNode real = json("{\"items\":[{\"machine\":\"m1\",\"gpuCount\":2}],\"total\":1}");

        assertShapeCovers(json("{\"items\":[{\"machine\":\"x\"}],\"total\":5}"), real);
        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        assertShapeCovers(json("{\"items\":[{\"machine\":\"x\",\"stale\":true}]}"), real))
                .hasMessageContaining("$.items[].stale:boolean");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> assertShapeCovers(json("{\"total\":\"1\"}"), real))
                .hasMessageContaining("$.total:string");
    }

    /** Every path of {@code recorded} (with its JSON type) appears in {@code real}; arrays are read element-wise. */
    static void assertShapeCovers(JsonNode recorded, JsonNode real) {
        Set<String> missing = new TreeSet<>(shape(recorded));
        missing.removeAll(shape(real));
        assertThat(missing).as("fields of the recording that the real answer lacks (or types differ)").isEmpty();
    }

    private static Set<String> shape(JsonNode node) {
        Set<String> paths = new TreeSet<>();
        collect(node, "$", paths);
        return paths;
    }

    private static void collect(JsonNode node, String path, Set<String> paths) {
        if (node == null || node.isNull()) {
            return;
        }
        if (node.isObject()) {
            paths.add(path + ":object");
            List<String> names = new ArrayList<>();
            node.fieldNames().forEachRemaining(names::add);
            names.forEach(name -> collect(node.get(name), path + "." + name, paths));
        } else if (node.isArray()) {
            paths.add(path + ":array");
            node.forEach(element -> collect(element, path + "[]", paths));
        } else {
            paths.add(path + ":" + (node.isNumber() ? "number" : node.isBoolean() ? "boolean" : "string"));
        }
    }

    private static JsonNode recording(String file) {
        return json(recordingText(file));
    }

    private static String recordingText(String file) {
        try {
            return Files.readString(RECORDINGS.resolve(file));
        } catch (IOException e) {
            throw new AssertionError("the CLI's recording " + RECORDINGS.resolve(file) + " cannot be read", e);
        }
    }

    private static JsonNode json(String text) {
        try {
            return EventJson.mapper().readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }
}
