package io.rediacc.gpu.inventory.metrics;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

    /** The buckets of api-security's LatencyHistograms, the same as grant-service's: one PromQL query sums both. */
    @Test
    void httpLatencyIsAHistogramWithTheSharedBuckets() {
        asViewer().get("/api/v1/gpus").then().statusCode(200);

        List<Double> bounds = RestAssured.given().get(metricsUrl).asString().lines()
                .filter(line -> line.startsWith("http_server_requests_seconds_bucket{"))
                .filter(line -> line.contains("uri=\"/api/v1/gpus\"") && line.contains("method=\"GET\"")
                        && line.contains("status=\"200\""))
                .map(line -> line.replaceFirst(".*le=\"([^\"]+)\".*", "$1"))
                .filter(le -> !le.equals("+Inf"))
                .map(Double::valueOf)
                .toList();

        assertThat(bounds).as("le bounds in seconds").hasSize(13);
        double[] expected = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
        for (int i = 0; i < expected.length; i++) {
            assertThat(bounds.get(i)).as("bucket %d", i).isCloseTo(expected[i], within(1e-9));
        }
    }
}
