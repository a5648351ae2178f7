package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The service describes itself: OpenAPI, health and metrics. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class OpenApiAndHealthTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    private final GrantApi api = new GrantApi();

    @Test
    void openApiDescribesTheGrantEndpoints() {
        Response openapi = api.request().queryParam("format", "json").get("/q/openapi");

        assertThat(openapi.statusCode()).isEqualTo(200);
        Map<String, Object> paths = openapi.path("paths");
        assertThat(paths).containsKeys("/api/v1/repos/{repo}/grants", "/api/v1/repos/{repo}/grants/{device}",
                "/api/v1/machines/{machine}/grants");
        assertThat(openapi.<Map<String, Object>>path("paths.'/api/v1/repos/{repo}/grants'.post.responses"))
                .containsKeys("200", "201", "202", "400", "404", "409", "422", "503");
        assertThat(openapi.<Map<String, Object>>path("components.schemas")).containsKeys("GrantRequest", "GrantResponse", "Problem");
    }

    @Test
    void readinessIsUpAndReportsTheOutboxRelay() {
        Response ready = api.request().get("/q/health/ready");

        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.<List<String>>path("checks.name")).contains("outbox-relay");
        assertThat(ready.<String>path("status")).isEqualTo("UP");
    }

    @Test
    void metricsArePublishedForPrometheus() {
        // one API request of its own, so the latency histogram exists when this class runs first or alone
        assertThat(api.request().get("/api/v1/repos/metrics-probe/grants").statusCode()).isLessThan(500);
        Response metrics = io.restassured.RestAssured.given().get(metricsUrl);

        assertThat(metrics.statusCode()).isEqualTo(200);
        // every product metric says what it is (# HELP with text), latency is a histogram with buckets
        assertThat(metrics.asString()).contains("grants_outbox_published_total", "# HELP grants_outbox_pending Outbox records",
                "# HELP grants_outbox_parked Rows in outbox_parked", "http_server_requests_seconds_bucket{");
        assertThat(metrics.asString().lines().filter(l -> l.startsWith("# HELP grants_")))
                .allSatisfy(help -> assertThat(help).matches("# HELP \\S+ \\S.*"));
        assertThat(api.request().get("/q/metrics").statusCode()).as("/q/metrics on the API port").isEqualTo(404);
    }
}
