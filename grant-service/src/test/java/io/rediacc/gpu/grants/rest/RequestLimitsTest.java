package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.api.security.RequestLimits;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.testsupport.HostileInput;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Over-long URLs, oversized heads and bodies get the JSON error shape from {@link RequestLimits},
 * not the HTTP layer's empty 414/431/413, and the service keeps answering afterwards.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class RequestLimitsTest {

    private final GrantApi api = new GrantApi();

    @Test
    void anOverLongUrlIsAJson414() {
        Response response = api.request().get("/api/v1/repos/" + "r".repeat(9_000) + "@m1/grants");
        assertError(response, 414, "uri-too-long");
        assertThat(response.<Integer>path("maxUriLength")).isEqualTo(8192);
    }

    @Test
    void anOversizedHeadIsAJson431() {
        Response response = api.request().header("X-Padding", "p".repeat(20_000)).get("/api/v1/machines/m1/grants");
        assertError(response, 431, "headers-too-large");
    }

    @Test
    void aBodyOverTheApisLimitIsAJson413EvenWhenTheClientSendsItAllFirst() {
        for (int size : new int[]{70_000, 10 * 1024 * 1024}) {
            Response response = api.request().contentType("application/json").body(HostileInput.huge(size))
                    .post("/api/v1/repos/train@m1/grants");
            assertError(response, 413, "body-too-large");
            assertThat(response.<Integer>path("maxBodyBytes")).isEqualTo(65536);
        }
        // the service still answers normally
        assertThat(api.machineGrants("m1").statusCode()).isIn(200, 404);
    }

    @Test
    void requestsWithinTheLimitsReachTheApi() {
        Response response = api.request().header("X-Padding", "p".repeat(10_000))
                .get("/api/v1/repos/" + "r".repeat(2_000) + "@m1/grants");
        assertThat(response.statusCode()).isBetween(400, 499);
        assertThat(response.<String>path("error")).isNotIn("uri-too-long", "headers-too-large");
    }

    private static void assertError(Response response, int status, String error) {
        assertThat(response.statusCode()).as(response.asString()).isEqualTo(status);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.<String>path("error")).isEqualTo(error);
        assertThat(response.<String>path("detail")).isNotBlank();
        assertThat(response.<String>path("hint")).isNotBlank();
    }
}
