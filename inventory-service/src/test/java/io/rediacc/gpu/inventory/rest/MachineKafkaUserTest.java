package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetApi;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code PUT/DELETE /api/v1/machines/{m}/kafka-user} on a service that does not manage Kafka users (the tests'
 * plaintext broker has no authentication; the default): a clear 409, never a 500; a bad password 400; a viewer 403.
 * The users themselves, on a broker with ACLs, are local-fleet's KafkaAclIT and the fleet's ITs.
 */
@QuarkusTest
@FleetResources
class MachineKafkaUserTest {

    static final String PASSWORD = "p".repeat(40);

    @Test
    void withoutKafkaUserManagementTheAnswerIs409NamingTheUserToCreate() {
        Response put = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                .body(Map.of("password", PASSWORD)).put("/api/v1/machines/{m}/kafka-user", "kafka-user-1");
        assertThat(put.statusCode()).as(put.asString()).isEqualTo(409);
        assertThat(put.contentType()).startsWith("application/problem+json");
        assertThat(put.<String>path("error")).isEqualTo("kafka-users-not-managed");
        assertThat(put.<String>path("hint")).contains("machine-kafka-user-1");
        Response delete = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).delete("/api/v1/machines/{m}/kafka-user", "kafka-user-1");
        assertThat(delete.statusCode()).as(delete.asString()).isEqualTo(409);
        assertThat(delete.<String>path("error")).isEqualTo("kafka-users-not-managed");
    }

    @Test
    void aPasswordAJaasLineCannotHoldOrAnUpperCaseMachineIs400() {
        for (Object body : List.of(Map.of("password", "short"), Map.of("password", "p".repeat(39) + "\""),
                Map.of("password", "p".repeat(129)), Map.of())) {
            Response r = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json").body(body)
                    .put("/api/v1/machines/{m}/kafka-user", "kafka-user-1");
            assertThat(r.statusCode()).as(body + ": " + r.asString()).isEqualTo(400);
            assertThat(r.<String>path("error")).isEqualTo("invalid-parameter");
        }
        Response upper = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                .body(Map.of("password", PASSWORD)).put("/api/v1/machines/{m}/kafka-user", "KAFKA-USER");
        assertThat(upper.statusCode()).as(upper.asString()).isEqualTo(400);
        assertThat(upper.<String>path("detail")).contains("use \"kafka-user\"");
    }

    @Test
    void aViewerMayNotTouchKafkaUsersAndNobodyWithoutAToken() {
        Response viewer = FleetApi.asViewer().contentType("application/json").body(Map.of("password", PASSWORD))
                .put("/api/v1/machines/{m}/kafka-user", "kafka-user-1");
        assertThat(viewer.statusCode()).as(viewer.asString()).isEqualTo(403);
        assertThat(FleetApi.asViewer().delete("/api/v1/machines/{m}/kafka-user", "kafka-user-1").statusCode()).isEqualTo(403);
        assertThat(given().delete("/api/v1/machines/{m}/kafka-user", "kafka-user-1").statusCode()).isEqualTo(401);
    }
}
