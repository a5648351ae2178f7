package io.rediacc.gpu.inventory.support;

import io.restassured.response.ValidatableResponse;

import java.time.Duration;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/** Reads the service's REST API the way a client does, waiting for what the consumers have yet to apply. */
public final class FleetApi {

    private FleetApi() {
    }

    /** Waits until the machine is known, then answers its detail. */
    public static ValidatableResponse awaitMachine(String machine) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                given().get("/api/v1/machines/{m}", machine).then().statusCode(200));
        return machine(machine);
    }

    public static ValidatableResponse machine(String machine) {
        return given().get("/api/v1/machines/{m}", machine).then().statusCode(200);
    }
}
