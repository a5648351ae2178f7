package io.rediacc.gpu.grants.security;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading needs viewer, granting and revoking need operator; the audit names the authenticated caller. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class WhoMayDoWhatTest {
    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    private final GrantApi operator = new GrantApi();
    private final GrantApi viewer = operator.as(GrantApi.VIEWER_TOKEN);
    private final GrantApi nobody = operator.as(null);

    @Test
    void callsWithoutATokenAre401WithABearerChallenge() {
        assertUnauthorized(nobody.repoGrants("train@m1"));
        assertUnauthorized(nobody.machineGrants("m1"));
        assertUnauthorized(nobody.grant("train@m1", "nvidia.com/gpu=0", false, "0"));
        assertUnauthorized(nobody.revoke("train@m1", "nvidia.com/gpu=0", "0"));
    }

    @Test
    void anUnknownTokenIs401() {
        Response response = operator.as("not-a-configured-token-at-all").machineGrants("m1");

        assertUnauthorized(response);
        assertThat(response.<String>path("detail")).contains("refused");
    }

    @Test
    void aViewerMayReadButNotGrantOrRevoke() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(operator, "viewer", train);
        operator.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").then().statusCode(202);

        assertThat(viewer.repoGrants(m.ref(train)).statusCode()).isEqualTo(200);
        assertThat(viewer.machineGrants(m.name).<List<?>>path("grants")).hasSize(1);
        assertForbidden(viewer.grant(m.ref(train), "nvidia.com/gpu=1", false, "0"));
        assertForbidden(viewer.revoke(m.ref(train), "nvidia.com/gpu=0", "0"));
        assertThat(operator.repoGrants(m.ref(train)).<List<?>>path("grants")).hasSize(1);
    }

    @Test
    void anOperatorMayGrantRevokeAndRead() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(operator, "operator", train);

        assertThat(operator.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isEqualTo(202);
        assertThat(operator.repoGrants(m.ref(train)).<List<String>>path("grants.grantedBy")).containsExactly("test-operator");
        assertThat(operator.revoke(m.ref(train), "nvidia.com/gpu=0", "0").statusCode()).isEqualTo(202);
    }

    @Test
    void theAuditNamesTheAuthenticatedCallerNotTheXActorHeader() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(operator, "actor", train);

        operator.as(GrantApi.ALICE_TOKEN).request().header("X-Actor", "mallory").contentType("application/json")
                .body(Map.of("device", "nvidia.com/gpu=0")).queryParam("wait", "0")
                .post("/api/v1/repos/{repo}/grants", m.ref(train)).then().statusCode(202);

        List<GrantEvent> events = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                        Topics.GRANT_EVENTS, m.name, read -> !read.isEmpty(), Duration.ofSeconds(20)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();
        assertThat(events).extracting(GrantEvent::actor).containsExactly("alice");
        assertThat(operator.repoGrants(m.ref(train)).<List<String>>path("grants.grantedBy")).containsExactly("alice");
    }

    @Test
    void healthOpenApiAndMetricsStayOpen() {
        assertThat(RestAssured.get("/q/health/live").statusCode()).isEqualTo(200);
        assertThat(RestAssured.get("/q/openapi").statusCode()).isEqualTo(200);
        assertThat(RestAssured.get(metricsUrl).statusCode()).isEqualTo(200);
    }

    static void assertUnauthorized(Response response) {
        assertThat(response.statusCode()).as(response.asString()).isEqualTo(401);
        assertThat(response.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.<String>path("error")).isEqualTo("unauthorized");
        assertThat(response.<String>path("hint")).contains("RDC_TOKEN");
    }

    static void assertForbidden(Response response) {
        assertThat(response.statusCode()).as(response.asString()).isEqualTo(403);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.<String>path("error")).isEqualTo("forbidden");
        assertThat(response.<String>path("detail")).contains("operator");
    }
}
