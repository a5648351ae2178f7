package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetApi;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every read of the fleet needs the viewer role (an operator is one too); health, OpenAPI and
 * metrics stay open; a refusal is the service's JSON error with a Bearer challenge.
 */
@QuarkusTest
@FleetResources
class WhoMayReadTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    private static final String MACHINE = Inventories.uniqueMachine("who-may-read");
    private static final List<String> READS = List.of("/api/v1/machines", "/api/v1/machines/" + MACHINE,
            "/api/v1/machines/" + MACHINE + "/gpus", "/api/v1/machines/" + MACHINE + "/inventory", "/api/v1/gpus");

    @Test
    void everyReadWithoutATokenIs401WithABearerChallenge() {
        for (String read : READS) {
            Response response = given().get(read);

            assertUnauthorized(read, response);
            assertThat(response.<String>path("detail")).contains("no bearer token");
        }
    }

    @Test
    void anUnknownTokenOrAnotherSchemeIs401() {
        for (String read : READS) {
            assertUnauthorized(read, given().auth().oauth2("not-a-configured-token-at-all").get(read));
            assertUnauthorized(read, given().auth().preemptive().basic("test-viewer", FleetApi.VIEWER_TOKEN).get(read));
        }
        assertThat(given().auth().oauth2("not-a-configured-token-at-all").get("/api/v1/gpus").<String>path("detail"))
                .contains("refused");
    }

    @Test
    void aViewerAndAnOperatorMayReadEverything() {
        FleetTopics.inventory(Inventories.nvidiaHost(MACHINE, Inventories.now()));
        awaitMachine(MACHINE);

        for (String read : READS) {
            assertThat(asViewer().get(read).statusCode()).as("viewer " + read).isEqualTo(200);
            assertThat(as(FleetApi.OPERATOR_TOKEN).get(read).statusCode()).as("operator " + read).isEqualTo(200);
        }
    }

    @Test
    void aTokenWithNeitherRoleIs403() {
        Response response = as("test-other-role-token-0123456789").get("/api/v1/machines");

        assertThat(response.statusCode()).as(response.asString()).isEqualTo(403);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.<String>path("error")).isEqualTo("forbidden");
        assertThat(response.<String>path("detail")).contains("viewer");
    }

    @Test
    void healthOpenApiAndMetricsStayOpen() {
        assertThat(given().get("/q/health/live").statusCode()).isEqualTo(200);
        assertThat(given().get("/q/health/ready").statusCode()).isEqualTo(200);
        assertThat(given().get("/q/openapi").statusCode()).isEqualTo(200);
        assertThat(given().get(metricsUrl).statusCode()).isEqualTo(200);
        assertThat(given().get("/q/metrics").statusCode()).as("/q/metrics on the API port").isEqualTo(404);
    }

    private static RequestSpecification as(String token) {
        return given().auth().oauth2(token);
    }

    private static void assertUnauthorized(String read, Response response) {
        assertThat(response.statusCode()).as(read + ": " + response.asString()).isEqualTo(401);
        assertThat(response.header("WWW-Authenticate")).as(read).startsWith("Bearer");
        assertThat(response.contentType()).as(read).startsWith("application/problem+json");
        assertThat(response.<String>path("error")).isEqualTo("unauthorized");
        assertThat(response.<String>path("hint")).contains("RDC_TOKEN");
    }
}
