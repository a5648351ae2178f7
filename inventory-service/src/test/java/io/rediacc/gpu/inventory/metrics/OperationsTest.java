package io.rediacc.gpu.inventory.metrics;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

@QuarkusTest
@FleetResources
class OperationsTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    @Test
    void readinessCoversTheDatabaseAndKafka() {
        given().get("/q/health/ready").then()
                .statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItems("Reactive PostgreSQL connections health check",
                        "Kafka connection health check", "SmallRye Reactive Messaging - readiness check"));
    }

    @Test
    void prometheusShowsKnownAndStaleMachinesAndIngestLag() {
        String fresh = Inventories.uniqueMachine("metrics-fresh");
        String stale = Inventories.uniqueMachine("metrics-stale");
        FleetTopics.inventory(Inventories.nvidiaHost(stale, Inventories.now().minusSeconds(3600)));
        FleetTopics.inventory(Inventories.nvidiaHost(fresh, Inventories.now()));
        awaitMachine(stale);
        awaitMachine(fresh);

        // the gauges are recounted every second in tests (inventory.metrics-refresh)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String metrics = given().get(metricsUrl).then().statusCode(200).extract().asString();
            assertThat(gauge(metrics, "inventory_machines_known")).isGreaterThanOrEqualTo(2);
            assertThat(gauge(metrics, "inventory_machines_stale")).isGreaterThanOrEqualTo(1);
            assertThat(gauge(metrics, "inventory_machines_stale")).isLessThan(gauge(metrics, "inventory_machines_known"));
            assertThat(gauge(metrics, "inventory_ingest_lag_seconds")).isBetween(0.0, 60.0);
            assertThat(metrics).contains("inventory_ingested_records_total{outcome=\"applied\",topic=\"gpu.inventory.v1\"}");
            // every product metric says what it is (# HELP with text)
            assertThat(metrics.lines().filter(l -> l.startsWith("# HELP inventory_"))).hasSizeGreaterThanOrEqualTo(4)
                    .allSatisfy(help -> assertThat(help).matches("# HELP \\S+ \\S.*"));
        });
    }

    @Test
    void openApiDescribesTheMachinesApi() {
        given().get("/q/openapi?format=json").then()
                .statusCode(200)
                .body(containsString("/api/v1/machines/{machine}/inventory"))
                .body(containsString("/api/v1/gpus"));
    }

    private static double gauge(String exposition, String name) {
        return exposition.lines()
                .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError(name + " missing from /q/metrics"));
    }
}
