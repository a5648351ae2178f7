package io.rediacc.gpu.grants.testing;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/** The grant service's REST API as a test calls it. */
public final class GrantApi {

    /** The operator token of the test profile ({@code %test.api.auth.tokens.test-operator}). */
    public static final String OPERATOR_TOKEN = "test-operator-token-0123456789";
    /** Tokens of named operators, so that tests can tell actors apart in the audit. */
    public static final String ALICE_TOKEN = "alice-operator-token-0123456789";
    public static final String BOB_TOKEN = "bob-operator-token-0123456789";
    /**
     * An operator with a tight write limit of its own ({@code %test.api.rate-limit.principals.limited}: 3 at
     * once, 1 per hour), so that WriteRateLimitTest runs on the shared application; only that test writes as it.
     */
    public static final String LIMITED_TOKEN = "limited-operator-token-0123456789";
    /** A token with the viewer role only. */
    public static final String VIEWER_TOKEN = "reader-viewer-token-0123456789";

    private final String baseUri;
    private final String token;

    /** The application under test ({@code @QuarkusTest} configures RestAssured's port), as an operator. */
    public GrantApi() {
        this(null, OPERATOR_TOKEN);
    }

    /** A running instance at {@code baseUri}, e.g. {@code http://localhost:8081}, as an operator. */
    public GrantApi(String baseUri) {
        this(baseUri, OPERATOR_TOKEN);
    }

    /** A running instance (or, with a null {@code baseUri}, the application under test) called with {@code token} (null: none). */
    public GrantApi(String baseUri, String token) {
        this.baseUri = baseUri;
        this.token = token;
    }

    /** The same API called with another bearer token (null: none). */
    public GrantApi as(String otherToken) {
        return new GrantApi(baseUri, otherToken);
    }

    public RequestSpecification request() {
        RequestSpecification spec = RestAssured.given();
        if (token != null) {
            spec = spec.header("Authorization", "Bearer " + token);
        }
        return baseUri == null ? spec : spec.baseUri(baseUri);
    }

    public Response grant(String repo, String device, boolean exclusive, String wait) {
        return request().contentType(ContentType.JSON)
                .queryParam("wait", wait)
                .body(Map.of("device", device, "exclusive", exclusive))
                .post("/api/v1/repos/{repo}/grants", repo);
    }

    public Response grant(String repo, Map<String, Object> body, String wait) {
        return request().contentType(ContentType.JSON)
                .queryParam("wait", wait)
                .body(body)
                .post("/api/v1/repos/{repo}/grants", repo);
    }

    public Response revoke(String repo, String device, String wait) {
        // the device is one path segment: its '/' travels encoded
        return request().urlEncodingEnabled(false)
                .queryParam("wait", wait)
                .delete("/api/v1/repos/" + repo + "/grants/" + URLEncoder.encode(device, StandardCharsets.UTF_8));
    }

    public Response repoGrants(String repo) {
        return request().get("/api/v1/repos/{repo}/grants", repo);
    }

    public Response machineGrants(String machine) {
        return request().get("/api/v1/machines/{machine}/grants", machine);
    }

    /** Waits until the service has applied an inventory of the machine. */
    public void awaitMachine(String machine) {
        awaitStatus(() -> machineGrants(machine).statusCode(), 200, "machine " + machine + " to be known");
    }

    /** Waits until the repo reference resolves to the given GUID (its inventory was applied). */
    public void awaitRepo(String repoRef, String guid) {
        await("repo " + repoRef + " to resolve to " + guid).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> repoGrants(repoRef), r -> r.statusCode() == 200 && guid.equals(r.path("repoGuid")));
    }

    private static void awaitStatus(java.util.function.IntSupplier status, int wanted, String what) {
        await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> status.getAsInt() == wanted);
    }
}
