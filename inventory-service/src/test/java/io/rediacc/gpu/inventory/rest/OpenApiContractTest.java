package io.rediacc.gpu.inventory.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.rediacc.gpu.testsupport.OpenApiContract;
import io.restassured.response.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document tells the truth: the answers rdc's tests stand on (cli/src/test/resources/recorded/
 * inventory-service, checked against the real service by {@link CliContractTest}) and answers this test
 * collects from the running service each have a status documented for their operation and a body that
 * validates against the documented schema; every operation has an operationId; every error is the
 * Problem schema as application/problem+json.
 */
@QuarkusTest
@FleetResources
class OpenApiContractTest {

    static final Path RECORDINGS = CliContractTest.RECORDINGS;
    private OpenApiContract contract;

    @BeforeEach
    void readTheDocument() {
        contract = OpenApiContract.of(given().accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString());
    }

    @Test
    void theRecordedAnswersFitTheDocument() throws IOException {
        List<String> violations = new ArrayList<>();
        violations.addAll(recorded("GET", "/api/v1/machines", 200, "machines-empty.json"));
        violations.addAll(recorded("GET", "/api/v1/machines", 200, "machines-page-0.json"));
        violations.addAll(recorded("GET", "/api/v1/machines", 200, "machines-page-1.json"));
        violations.addAll(recorded("GET", "/api/v1/machines", 400, "error-invalid-parameter.json"));
        violations.addAll(recorded("GET", "/api/v1/machines", 401, "error-unauthorized.json"));
        violations.addAll(recorded("GET", "/api/v1/machines/{machine}", 200, "machine-gpu-host-1.json"));
        violations.addAll(recorded("GET", "/api/v1/machines/{machine}", 200, "machine-wsl-gpu.json"));
        violations.addAll(recorded("GET", "/api/v1/machines/{machine}", 401, "error-unauthorized.json"));
        violations.addAll(recorded("GET", "/api/v1/machines/{machine}", 404, "error-unknown-machine.json"));
        violations.addAll(recorded("GET", "/api/v1/machines/{machine}/inventory", 200, "inventory-wsl-gpu.json"));

        assertThat(violations).isEmpty();
    }

    @Test
    void answersCollectedFromTheRunningServiceFitTheDocument() {
        String machine = Inventories.uniqueMachine("openapi");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        awaitMachine(machine);

        List<String> violations = new ArrayList<>();
        violations.addAll(live("GET", "/api/v1/machines", asViewer().get("/api/v1/machines")));
        violations.addAll(live("GET", "/api/v1/machines", asViewer().get("/api/v1/machines?size=0")));
        violations.addAll(live("GET", "/api/v1/machines", given().get("/api/v1/machines")));
        violations.addAll(live("GET", "/api/v1/machines", given().auth().oauth2("test-other-role-token-0123456789").get("/api/v1/machines")));
        violations.addAll(live("GET", "/api/v1/machines/{machine}", asViewer().get("/api/v1/machines/" + machine)));
        violations.addAll(live("GET", "/api/v1/machines/{machine}", asViewer().get("/api/v1/machines/nope")));
        violations.addAll(live("GET", "/api/v1/machines/{machine}", asViewer().get("/api/v1/machines/" + "m".repeat(9000))));
        violations.addAll(live("GET", "/api/v1/machines/{machine}/gpus", asViewer().get("/api/v1/machines/" + machine + "/gpus")));
        violations.addAll(live("GET", "/api/v1/machines/{machine}/gpus", asViewer().get("/api/v1/machines/nope/gpus")));
        violations.addAll(live("GET", "/api/v1/machines/{machine}/inventory", asViewer().get("/api/v1/machines/" + machine + "/inventory")));
        violations.addAll(live("GET", "/api/v1/machines/{machine}/inventory", asViewer().get("/api/v1/machines/bad..name/inventory")));
        violations.addAll(live("GET", "/api/v1/gpus", asViewer().get("/api/v1/gpus")));
        violations.addAll(live("GET", "/api/v1/gpus", asViewer().get("/api/v1/gpus?page=-1")));

        assertThat(violations).isEmpty();
    }

    @Test
    void everyOperationHasAUniqueOperationIdAndItsErrorsAreProblems() {
        Set<String> ids = new HashSet<>();
        for (String operation : contract.operations()) {
            String[] parts = operation.split(" ", 2);
            JsonNode op = contract.operation(parts[0], parts[1]);
            assertThat(op.path("operationId").asText()).as(operation).isNotBlank();
            assertThat(ids.add(op.path("operationId").asText())).as("unique operationId of " + operation).isTrue();
            assertThat(op.path("responses").has("200")).as(operation + " documents its 200").isTrue();
            op.path("responses").fields().forEachRemaining(response -> {
                if (response.getKey().startsWith("4") || response.getKey().startsWith("5")) {
                    assertThat(response.getValue().path("content").path("application/problem+json").path("schema").path("$ref").asText())
                            .as(operation + " " + response.getKey()).isEqualTo("#/components/schemas/Problem");
                }
            });
            assertThat(op.path("responses").has("401") && op.path("responses").has("500")).as(operation).isTrue();
        }
        assertThat(ids).contains("listMachines", "getMachine", "listMachineGpus", "getMachineInventory", "listGpus");
        JsonNode problem = contract.document().path("components").path("schemas").path("Problem");
        List<String> required = new ArrayList<>();
        problem.path("required").forEach(n -> required.add(n.asText()));
        assertThat(required).contains("type", "title", "status", "detail", "hint", "error", "requestId");
        assertThat(contract.document().path("info").path("version").asText()).isEqualTo("1.0.0");
    }

    @Test
    void theComparisonCatchesAnUndocumentedStatusAndABodyOfTheWrongShape() {
        assertThat(contract.violations("GET", "/api/v1/machines", 418, "{}")).singleElement().asString().contains("not documented");
        assertThat(contract.violations("GET", "/api/v1/machines/{machine}", 404, "{\"error\":\"unknown machine\"}"))
                .anySatisfy(v -> assertThat(v).contains("type"));
    }

    private List<String> recorded(String method, String path, int status, String file) throws IOException {
        return contract.violations(method, path, status, Files.readString(RECORDINGS.resolve(file)));
    }

    private List<String> live(String method, String path, Response answer) {
        return contract.violations(method, path, answer.statusCode(), answer.asString());
    }
}
