package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Rule 8: every error is JSON with the right 4xx, saying what was wrong and how to fix it; never a 500. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class ErrorResponsesTest {

    private final GrantApi api = new GrantApi();

    @Test
    void malformedJsonIs400NotServerError() {
        Response response = post("train@m1", "{\"device\": \"nvidia.com/gpu=0\", ");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).startsWith("the body is not valid JSON");
        assertThat(response.asString()).doesNotContain("at com.fasterxml", "Exception");
    }

    @Test
    void wrongTypeIs400NamingTheField() {
        Response response = post("train@m1", "{\"device\": \"nvidia.com/gpu=0\", \"exclusive\": \"yes\"}");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).isEqualTo("field exclusive must be a boolean (true or false)");
    }

    @Test
    void misspeltFieldIs400RatherThanASilentSharedGrant() {
        Response response = post("train@m1", "{\"device\": \"nvidia.com/gpu=0\", \"exclusiv\": true}");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).isEqualTo("unknown field \"exclusiv\"; known fields: device, exclusive, expiresAt, expiresIn, machine, reason");
    }

    /** Issue 31: the strict reader (contracts StrictJson) on REST bodies: nothing is guessed. */
    @Test
    void contentAfterTheBodyIs400() {
        Response response = post("train@m1", "{\"device\": \"nvidia.com/gpu=0\"}{\"device\": \"nvidia.com/gpu=all\"}");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).contains("content after its JSON value");
    }

    @Test
    void aFieldTwiceIs400NamingIt() {
        Response response = post("train@m1", "{\"device\": \"nvidia.com/gpu=0\", \"device\": \"nvidia.com/gpu=all\"}");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).startsWith("the field \"device\" appears twice in one object");
    }

    @Test
    void aNumberForABooleanIs400() {
        Response response = post("train@m1", "{\"device\": \"nvidia.com/gpu=0\", \"exclusive\": 1}");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).contains("exclusive").contains("boolean");
    }

    @Test
    void aByteOrderMarkIs400() {
        byte[] json = "{\"device\": \"nvidia.com/gpu=0\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] body = new byte[json.length + 3];
        body[0] = (byte) 0xEF;
        body[1] = (byte) 0xBB;
        body[2] = (byte) 0xBF;
        System.arraycopy(json, 0, body, 3, json.length);
        Response response = api.request().contentType(ContentType.JSON).body(body).post("/api/v1/repos/{repo}/grants", "train@m1");

        assertError(response, 400, "malformed-body");
        assertThat(response.<String>path("detail")).contains("byte order mark");
    }

    @Test
    void missingBodyIs400() {
        Response response = api.request().contentType(ContentType.JSON).post("/api/v1/repos/train@m1/grants");

        assertError(response, 400, "missing-body");
    }

    @Test
    void missingDeviceIs400() {
        Response response = post("train@m1", "{\"exclusive\": true}");

        assertError(response, 400, "invalid-device-name");
        assertThat(response.<String>path("detail")).startsWith("device name is empty");
    }

    @Test
    void invalidWaitIs400() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "wait", train);

        Response response = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "soon");

        assertError(response, 400, "invalid-wait");
        assertThat(response.<String>path("hint")).contains("500ms");
        assertThat(api.repoGrants(m.ref(train)).<java.util.List<?>>path("grants")).isEmpty();
    }

    @Test
    void invalidRepoReferenceIs400() {
        assertError(post("train@", "{\"device\": \"nvidia.com/gpu=0\"}"), 400, "invalid-identifier");
        assertError(post("-train", "{\"device\": \"nvidia.com/gpu=0\"}"), 400, "invalid-identifier");
        assertError(api.machineGrants("bad_machine_"), 400, "invalid-identifier");
    }

    @Test
    void unknownMachineIs404() {
        Response response = api.machineGrants(Fleet.uniqueMachine("nowhere"));

        assertError(response, 404, "unknown-machine");
    }

    @Test
    void unknownPathIsJson404() {
        assertError(api.request().get("/api/v1/nothing-here"), 404, "not-found");
    }

    @Test
    void wrongContentTypeIsJson415() {
        Response response = api.request().contentType(ContentType.TEXT).body("device=nvidia.com/gpu=0")
                .post("/api/v1/repos/train@m1/grants");

        assertError(response, 415, "unsupported-media-type");
    }

    private Response post(String repo, String json) {
        return api.request().contentType(ContentType.JSON).body(json).post("/api/v1/repos/{repo}/grants", repo);
    }

    private static void assertError(Response response, int status, String error) {
        assertThat(response.statusCode()).as(response.asString()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.<String>path("error")).isEqualTo(error);
        assertThat(response.<String>path("detail")).isNotBlank();
        assertThat(response.<String>path("hint")).isNotBlank();
    }
}
