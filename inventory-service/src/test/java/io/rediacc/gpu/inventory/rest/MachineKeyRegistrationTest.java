package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetApi;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** A key that is missing or unreadable is 400 invalid-key, the same code grant-service answers (docs/ERRORS.md). */
@QuarkusTest
@FleetResources
class MachineKeyRegistrationTest {

    @Test
    void aMissingOrUnreadableKeyIs400InvalidKeyAndRegistersNothing() {
        for (Map<String, String> body : java.util.List.of(Map.of("publicKey", "not a key"), Map.of("reason", "no key"))) {
            Response r = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json").body(body)
                    .put("/api/v1/machines/{m}/key", "key-test-1");
            assertThat(r.statusCode()).as(r.asString()).isEqualTo(400);
            assertThat(r.contentType()).startsWith("application/problem+json");
            assertThat(r.<String>path("error")).isEqualTo("invalid-key");
            assertThat(r.<String>path("hint")).contains("machine-key.pub");
        }
        Response shown = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).get("/api/v1/machines/{m}/key", "key-test-1");
        assertThat(shown.statusCode()).as(shown.asString()).isEqualTo(404);
    }

    /** The rule grant-service applies too (SigningKeys.parseOffered): an oversized key line is refused by its length. */
    @Test
    void anOversizedKeyLineIsRefusedByItsLength() {
        Response r = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                .body(Map.of("publicKey", "A".repeat(6_000))).put("/api/v1/machines/{m}/key", "key-test-2");

        assertThat(r.statusCode()).as(r.asString()).isEqualTo(400);
        assertThat(r.<String>path("error")).isEqualTo("invalid-key");
        assertThat(r.<String>path("detail")).contains("the key is 6000 characters");
    }
}
