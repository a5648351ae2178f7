package io.rediacc.gpu.inventory.support;

import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;

import java.time.Duration;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/**
 * Reads the service's REST API the way a client does: with a viewer's bearer token (every
 * {@code /api/v1} read needs one), waiting for what the consumers have yet to apply.
 */
public final class FleetApi {

    /** The viewer token of the test profile ({@code %test.api.auth.tokens.test-viewer}). */
    public static final String VIEWER_TOKEN = "test-viewer-token-0123456789";
    /** The operator token of the test profile: an operator is also a viewer. */
    public static final String OPERATOR_TOKEN = "test-operator-token-0123456789";

    private FleetApi() {
    }

    /** A request as the test profile's viewer. */
    public static RequestSpecification asViewer() {
        return given().auth().oauth2(VIEWER_TOKEN);
    }

    /** Waits until the machine is known, then answers its detail. */
    public static ValidatableResponse awaitMachine(String machine) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200));
        return machine(machine);
    }

    /** Waits until the machine's detail lists {@code count} gates (the gate reports applied, or a removal), then answers it. */
    public static ValidatableResponse awaitGates(String machine, int count) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                machine(machine).body("gates", org.hamcrest.Matchers.hasSize(count)));
        return machine(machine);
    }

    public static ValidatableResponse machine(String machine) {
        return asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200);
    }
}
