package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.RestAssured;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 16: /q/metrics URI tags come only from matched route templates, never from a caller's raw path. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class MetricsUriTagTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    @Test
    void unauthenticatedAndUnmatchedRequestsLeaveNoRawPathInTheMetrics() {
        // a method the route does not have, unauthenticated: 405 or 401, before any template matched
        int put = RestAssured.given().put("/api/v1/repos/secret-repo-7f3@secret-host-7f3/grants").statusCode();
        assertThat(put).isBetween(400, 499);
        assertThat(RestAssured.given().get("/no/such/path-7f3a9").statusCode()).isEqualTo(404);
        assertThat(RestAssured.given().delete("/api/v1/machines/secret-host-7f3/grants").statusCode()).isBetween(400, 499);

        var scrape = RestAssured.given().get(metricsUrl);
        assertThat(scrape.statusCode()).as("the management port's /q/metrics").isEqualTo(200);
        String metrics = scrape.asString();
        assertThat(metrics).contains("http_server_requests_seconds");
        assertThat(metrics).doesNotContain("secret-repo-7f3").doesNotContain("secret-host-7f3").doesNotContain("path-7f3a9");
    }
}
