package io.rediacc.gpu.inventory.metrics;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Test;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static org.assertj.core.api.Assertions.assertThat;

/** /q/metrics tags requests by matched route template only: no machine name or junk path becomes a tag. */
@QuarkusTest
@FleetResources
class MetricsUriTagTest {

    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;

    @Test
    void answeredRequestsAreTaggedByTheirTemplateAndUnmatchedOnesNotAtAll() {
        String machine = Inventories.uniqueMachine("tagged-7e1");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        awaitMachine(machine);
        asViewer().get("/api/v1/machines/{m}/gpus", machine).then().statusCode(200);
        // unmatched, unauthenticated or refused: 404, 405, 401 before any template matched
        assertThat(RestAssured.given().get("/no/such/path-7e1b2").statusCode()).isEqualTo(404);
        assertThat(RestAssured.given().put("/api/v1/machines/secret-host-7e1").statusCode()).isBetween(400, 499);
        assertThat(RestAssured.given().get("/api/v1/machines/secret-host-7e1").statusCode()).isEqualTo(401);

        var scrape = RestAssured.given().get(metricsUrl);
        assertThat(scrape.statusCode()).as("the management port's /q/metrics").isEqualTo(200);
        String metrics = scrape.asString();

        assertThat(metrics).contains("uri=\"/api/v1/machines/{machine}/gpus\"");
        assertThat(metrics).doesNotContain(machine).doesNotContain("secret-host-7e1").doesNotContain("path-7e1b2");
    }
}
