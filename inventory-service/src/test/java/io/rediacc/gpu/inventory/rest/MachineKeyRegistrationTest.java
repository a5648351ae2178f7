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

    /** One flag parser in both services (api-security QueryFlag): rekey=TRUE is 400 as in grant-service, the key stays. */
    @Test
    void rekeyInUpperCaseIsRefusedAndTheKeyStays() {
        String machine = "key-test-case-" + System.nanoTime();
        var first = io.rediacc.gpu.contracts.signing.SigningKeys.generate();
        Response registered = register(machine, first, null);
        assertThat(registered.statusCode()).as(registered.asString()).isEqualTo(200);

        Response refused = register(machine, io.rediacc.gpu.contracts.signing.SigningKeys.generate(), "TRUE");
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(400);
        assertThat(refused.<String>path("error")).isEqualTo("invalid-parameter");
        assertThat(refused.<String>path("parameter")).isEqualTo("rekey");
        assertThat(refused.<String>path("detail")).isEqualTo("rekey=\"TRUE\" is not a boolean: only true or false (lower case) is accepted");
        assertThat(given().auth().oauth2(FleetApi.OPERATOR_TOKEN).get("/api/v1/machines/{m}/key", machine).<String>path("keyId"))
                .isEqualTo(io.rediacc.gpu.contracts.signing.SigningKeys.keyId(first.getPublic()));
    }

    /** Machine names are lower case: RT-M2 would register a second machine beside rt-m2. */
    @Test
    void aMachineNameInUpperCaseIsRefusedWithItsLowerCaseSpelling() {
        Response refused = register("RT-M2", io.rediacc.gpu.contracts.signing.SigningKeys.generate(), null);
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(400);
        assertThat(refused.<String>path("detail")).contains("use \"rt-m2\"");
        Response read = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).get("/api/v1/machines/{m}", "RT-M2");
        assertThat(read.statusCode()).as(read.asString()).isEqualTo(400);
        assertThat(read.<String>path("detail")).contains("use \"rt-m2\"");
    }

    /** Issue 31: request bodies are read strictly (contracts StrictJson), as grant-service reads them. */
    @Test
    void aLenientBodyIs400MalformedBody() {
        String pem = io.rediacc.gpu.contracts.signing.SigningKeys.publicPem(io.rediacc.gpu.contracts.signing.SigningKeys.generate().getPublic());
        String body = io.rediacc.gpu.contracts.events.EventJson.toJson(Map.of("publicKey", pem));
        for (Map.Entry<String, String> c : Map.of(
                body + "{}", "content after its JSON value",
                body.replaceFirst("\\{", "{\"reason\":\"a\",\"reason\":\"b\","), "the field \"reason\" appears twice",
                "\uFEFF" + body, "byte order mark",
                body.replaceFirst("\\{", "{\"reason\":7,"), "reason",
                body.replaceFirst("\\{", "{\"extra\":true,"), "unknown field \"extra\"").entrySet()) {
            Response r = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                    .body(c.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8)).put("/api/v1/machines/{m}/key", "key-test-3");
            assertThat(r.statusCode()).as(c.getKey() + " " + r.asString()).isEqualTo(400);
            assertThat(r.<String>path("error")).isEqualTo("malformed-body");
            assertThat(r.<String>path("detail")).contains(c.getValue());
        }
        assertThat(given().auth().oauth2(FleetApi.OPERATOR_TOKEN).get("/api/v1/machines/{m}/key", "key-test-3").statusCode()).isEqualTo(404);
    }

    private static Response register(String machine, java.security.KeyPair key, String rekey) {
        var request = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                .body(Map.of("publicKey", io.rediacc.gpu.contracts.signing.SigningKeys.publicPem(key.getPublic()), "reason", "test"));
        if (rekey != null) {
            request = request.queryParam("rekey", rekey);
        }
        return request.put("/api/v1/machines/{m}/key", machine);
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
