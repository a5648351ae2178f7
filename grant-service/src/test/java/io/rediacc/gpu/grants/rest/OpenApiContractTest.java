package io.rediacc.gpu.grants.rest;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.OpenApiContract;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document tells the truth: the answers rdc's tests stand on (cli/src/test/resources/recorded/
 * grant-service) and answers this test collects from the running service each have a status documented
 * for their operation and a body that validates against the documented schema; every operation has an
 * operationId; every error is the Problem schema as application/problem+json.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class OpenApiContractTest {

    static final Path RECORDINGS = Path.of(System.getProperty("basedir", "."))
            .resolve("../cli/src/test/resources/recorded/grant-service").normalize();
    static final String GRANTS = "/api/v1/repos/{repo}/grants";
    static final String GRANT = "/api/v1/repos/{repo}/grants/{device}";
    static final String MACHINE_GRANTS = "/api/v1/machines/{machine}/grants";

    private OpenApiContract contract;
    private final GrantApi api = new GrantApi();

    @BeforeEach
    void readTheDocument() {
        contract = OpenApiContract.of(given().accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString());
    }

    @Test
    void theRecordedAnswersFitTheDocument() throws IOException {
        List<String> violations = new ArrayList<>();
        violations.addAll(recorded("POST", GRANTS, 200, "grant-already.json"));
        violations.addAll(recorded("POST", GRANTS, 201, "grant-created.json"));
        violations.addAll(recorded("POST", GRANTS, 202, "grant-not-enforced.json"));
        violations.addAll(recorded("POST", GRANTS, 400, "error-invalid-device-name.json"));
        violations.addAll(recorded("POST", GRANTS, 404, "error-unknown-repo.json"));
        violations.addAll(recorded("POST", GRANTS, 409, "error-exclusive-conflict.json"));
        violations.addAll(recorded("POST", GRANTS, 422, "error-unknown-device.json"));
        violations.addAll(recorded("POST", GRANTS, 503, "error-database-unavailable.json"));
        violations.addAll(recorded("DELETE", GRANT, 200, "revoke-enforced.json"));
        violations.addAll(recorded("DELETE", GRANT, 202, "revoke-not-enforced.json"));
        violations.addAll(recorded("DELETE", GRANT, 404, "error-not-granted.json"));
        violations.addAll(recorded("GET", GRANTS, 200, "repo-grants-empty.json"));
        violations.addAll(recorded("GET", GRANTS, 200, "repo-grants-train-a.json"));
        violations.addAll(recorded("GET", GRANTS, 404, "error-unknown-repo.json"));
        violations.addAll(recorded("GET", MACHINE_GRANTS, 200, "machine-grants-gpu-host-1.json"));
        violations.addAll(recorded("GET", MACHINE_GRANTS, 404, "error-unknown-machine.json"));

        assertThat(violations).isEmpty();
    }

    @Test
    void answersCollectedFromTheRunningServiceFitTheDocument() {
        RepoInfo train = Fleet.repo("train");
        RepoInfo infer = Fleet.repo("infer");
        TestMachine m = TestMachine.withRepos(api, "openapi", train, infer);

        List<String> violations = new ArrayList<>();
        violations.addAll(live("POST", GRANTS, api.grant(m.ref(train), "nvidia.com/gpu=0", true, "0")));
        violations.addAll(live("POST", GRANTS, api.grant(m.ref(train), "nvidia.com/gpu=0", true, "0")));
        violations.addAll(live("POST", GRANTS, api.grant(m.ref(infer), "nvidia.com/gpu=0", false, "0")));
        violations.addAll(live("POST", GRANTS, api.grant(m.ref(train), "nvidia.com/gpu=9", false, "0")));
        violations.addAll(live("POST", GRANTS, api.grant(m.ref(train), "nvidia.com/gpu=", false, "0")));
        violations.addAll(live("POST", GRANTS, api.grant("ghost@" + m.name, "nvidia.com/gpu=0", false, "0")));
        violations.addAll(live("POST", GRANTS, api.grant(m.ref(train), Map.of("device", "nvidia.com/gpu=1", "exclusiv", true), "0")));
        violations.addAll(live("POST", GRANTS, api.as(GrantApi.VIEWER_TOKEN).grant(m.ref(train), "nvidia.com/gpu=1", false, "0")));
        violations.addAll(live("POST", GRANTS, new GrantApi(null, null).grant(m.ref(train), "nvidia.com/gpu=1", false, "0")));
        violations.addAll(live("GET", GRANTS, api.repoGrants(m.ref(train))));
        violations.addAll(live("GET", MACHINE_GRANTS, api.machineGrants(m.name)));
        violations.addAll(live("GET", MACHINE_GRANTS, api.machineGrants(Fleet.uniqueMachine("nowhere"))));
        violations.addAll(live("DELETE", GRANT, api.revoke(m.ref(infer), "nvidia.com/gpu=1", "0")));
        violations.addAll(live("DELETE", GRANT, api.revoke(m.ref(train), "nvidia.com/gpu=0", "0")));
        violations.addAll(live("GET", "/api/v1/audit", api.request().queryParam("machine", m.name).get("/api/v1/audit")));
        violations.addAll(live("GET", "/api/v1/audit", api.request().queryParam("limit", "0").get("/api/v1/audit")));
        violations.addAll(live("GET", "/api/v1/outbox/parked", api.request().get("/api/v1/outbox/parked")));
        violations.addAll(live("GET", "/api/v1/outbox/parked/{id}", api.request().get("/api/v1/outbox/parked/x")));
        violations.addAll(live("GET", "/api/v1/outbox/parked/{id}", api.request().get("/api/v1/outbox/parked/99999999")));

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
            op.path("responses").fields().forEachRemaining(response -> {
                if (response.getKey().startsWith("4") || response.getKey().startsWith("5")) {
                    assertThat(response.getValue().path("content").path("application/problem+json").path("schema").path("$ref").asText())
                            .as(operation + " " + response.getKey()).isEqualTo("#/components/schemas/Problem");
                }
            });
            assertThat(op.path("responses").has("401") && op.path("responses").has("500")).as(operation).isTrue();
            if (!"GET".equals(parts[0])) {
                assertThat(op.path("responses").has("429")).as(operation + " documents its rate limit").isTrue();
            }
        }
        assertThat(ids).contains("grantDevice", "revokeDevice", "listRepoGrants", "getMachineGrants", "removeMachine", "listAudit");
        assertThat(contract.document().path("info").path("version").asText()).isEqualTo("1.0.0");
    }

    private List<String> recorded(String method, String path, int status, String file) throws IOException {
        return contract.violations(method, path, status, Files.readString(RECORDINGS.resolve(file)));
    }

    private List<String> live(String method, String path, Response answer) {
        return contract.violations(method, path, answer.statusCode(), answer.asString());
    }
}
