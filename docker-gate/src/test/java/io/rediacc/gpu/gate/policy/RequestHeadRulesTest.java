package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.BUILDKIT_SAFE_REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Decisions taken on the request line and headers alone. */
class RequestHeadRulesTest {

    private static HeadVerdict onHead(String method, String uri) {
        return POLICY.onHead(new RequestHead(method, uri, Map.of()), REPO);
    }

    private static HeadVerdict onHead(String method, String uri, Map<String, List<String>> headers) {
        return POLICY.onHead(new RequestHead(method, uri, headers), REPO);
    }

    @ParameterizedTest(name = "{0} {1} → {2}")
    @CsvSource({
            "POST, /v1.50/containers/create?name=a, container-create",
            "POST, /v1.50/containers/abc/exec, exec-create",
            "POST, /v1.50/volumes/create, volume-create",
            "POST, /v1.50/services/create, service-create",
            "POST, /v1.50/services/web/update?version=12, service-update"})
    void bodiesThatCanCarryHardwareAreInspected(String method, String uri, String route) {
        assertThat(onHead(method, uri)).isEqualTo(new HeadVerdict.InspectBody(route));
    }

    @ParameterizedTest(name = "{0} {1} → {3}")
    @CsvSource({
            "POST, /v1.50/containers/abc/update, 1.50, update, ''",
            "GET, /v1.50/containers/abc/archive?path=/etc, 1.50, archive, path=/etc",
            "HEAD, /containers/abc/archive?path=/, , archive, path=/",
            "GET, /v1.44/containers/abc/export, 1.44, export, ''",
            "POST, /v1.44/commit?container=abc&repo=r, 1.44, commit, container=abc&repo=r"})
    void routesWhereTheDaemonMountsTheContainerAreJudgedOnItsStoredConfiguration(String method, String uri, String version,
                                                                               String action, String query) {
        assertThat(onHead(method, uri)).isEqualTo(new HeadVerdict.InspectStoredContainer("abc", version, action, query));
        assertThat(onHead("PUT", "/v1.50/containers/abc/archive?path=/"))
                .isEqualTo(new HeadVerdict.InspectStoredContainer("abc", "1.50", "archive", "path=/", true));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "GET, /v1.50/containers/json",
            "POST, /v1.50/containers/abc/attach?stream=1&stdin=1",
            "POST, /v1.50/containers/abc/wait",
            "GET, /v1.50/containers/abc/logs?follow=1",
            "GET, /v1.50/events",
            "POST, /v1.50/exec/e1/start",
            "POST, /v1.50/containers/abc/unpause",
            "POST, /v1.50/containers/abc/kill",
            "POST, /v1.50/images/create?fromImage=ubuntu",
            "POST, /v1.50/build?t=x",
            "POST, /v1.50/build?version=1",
            "HEAD, /_ping",
            "OPTIONS, *"})
    void everythingElseStreamsThrough(String method, String uri) {
        assertThat(onHead(method, uri)).isEqualTo(new HeadVerdict.Pass());
    }

    @Test
    void startChecksTheStoredContainer() {
        assertThat(onHead("POST", "/v1.50/containers/gpu-job/start")).isEqualTo(new HeadVerdict.InspectStoredContainer("gpu-job", "1.50", "start", ""));
    }

    @Test
    void restartChecksTheStoredContainer() {
        assertThat(onHead("POST", "/v1.50/containers/3f2a9c/restart?t=5")).isEqualTo(new HeadVerdict.InspectStoredContainer("3f2a9c", "1.50", "restart", "t=5"));
    }

    @Test
    void checkpointRestoreStartChecksTheStoredContainer() {
        assertThat(onHead("POST", "/containers/abc/start?checkpoint=c1")).isEqualTo(new HeadVerdict.InspectStoredContainer("abc", null, "start", "checkpoint=c1"));
    }

    @Test
    void unpauseIsNotAStart() {
        assertThat(onHead("POST", "/v1.50/containers/abc/unpause")).isEqualTo(new HeadVerdict.Pass());
    }

    @Test
    void startWithABodyIsRefused() {
        Refusal r = refusal(onHead("POST", "/v1.23/containers/abc/start", Map.of("content-length", List.of("27"))));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.rule()).isEqualTo("start-with-body");
        assertThat(r.message()).contains("1.24");
    }

    @Test
    void startWithAChunkedBodyIsRefused() {
        Refusal r = refusal(onHead("POST", "/v1.23/containers/abc/start", Map.of("transfer-encoding", List.of("chunked"))));
        assertThat(r.rule()).isEqualTo("start-with-body");
    }

    @Test
    void startIsNeverJudgedByItsBody() {
        RequestHead head = new RequestHead("POST", "/v1.23/containers/abc/start", Map.of());
        Refusal r = refusal(POLICY.onBody(head, utf8("{\"Privileged\":false}"), REPO, grants()));
        assertThat(r.rule()).isEqualTo("start-with-body");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/v1.50/containers/a%2Fb/start", "/v1.50/containers/a b/start", "/v1.50/containers/-x/start",
            "/v1.50/containers/%C3%A9/restart"})
    void startOfSomethingThatIsNotAContainerNameIsRefused(String uri) {
        assertThat(refusal(onHead("POST", uri)).status()).isEqualTo(400);
    }

    @Test
    void bothContentLengthAndChunkedIsRefusedAsAmbiguous() {
        Refusal r = refusal(onHead("POST", "/v1.50/containers/create",
                Map.of("content-length", List.of("10"), "transfer-encoding", List.of("chunked"))));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.rule()).isEqualTo("ambiguous-framing");
    }

    @Test
    void ambiguousFramingIsRefusedOnStreamingEndpointsToo() {
        Refusal r = refusal(onHead("POST", "/v1.50/build", Map.of("content-length", List.of("10"), "transfer-encoding", List.of("chunked"))));
        assertThat(r.rule()).isEqualTo("ambiguous-framing");
    }

    @ParameterizedTest(name = "Content-Length {0}")
    @ValueSource(strings = {"-1", "+5", "0x10", "5, 5", "", "99999999999999999999"})
    void malformedContentLengthIsRefused(String value) {
        assertThat(refusal(onHead("POST", "/v1.50/containers/create", Map.of("content-length", List.of(value)))).rule())
                .isEqualTo("ambiguous-framing");
    }

    @Test
    void framingHeadersAreFoundWhateverTheirCase() {
        Refusal r = refusal(onHead("POST", "/v1.50/containers/create",
                Map.of("Content-Length", List.of("10"), "TRANSFER-ENCODING", List.of("chunked"))));
        assertThat(r.rule()).isEqualTo("ambiguous-framing");
    }

    @Test
    void conflictingContentLengthsAreRefused() {
        assertThat(refusal(onHead("POST", "/v1.50/containers/create", Map.of("content-length", List.of("5", "6")))).rule())
                .isEqualTo("ambiguous-framing");
    }

    @Test
    void repeatedIdenticalContentLengthIsAccepted() {
        assertThat(onHead("POST", "/v1.50/containers/create", Map.of("content-length", List.of("5", " 5"))))
                .isEqualTo(new HeadVerdict.InspectBody("container-create"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "POST, /session",
            "POST, /v1.50/session",
            "GET, /v1.50/session/x",
            "POST, /grpc",
            "POST, /v1.50/grpc",
            "POST, http://docker/v1.50/%67rpc",
            "POST, /v1.50/build?version=2",
            "POST, /v1.50/build?t=x&version=2",
            "POST, /v1.50/build?versio%6E=2",
            "POST, /v1.50/build?q=1;version=2"})
    void buildKitIsRefusedWithAPointerToTheClassicBuilder(String method, String uri) {
        Refusal r = refusal(onHead(method, uri));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("buildkit");
        assertThat(r.message()).contains("DOCKER_BUILDKIT=0");
    }

    @Test
    void h2cUpgradeIsRefused() {
        Refusal r = refusal(onHead("GET", "/_ping", Map.of("upgrade", List.of("H2C"), "connection", List.of("Upgrade, HTTP2-Settings"))));
        assertThat(r.rule()).isEqualTo("buildkit");
    }

    @Test
    void formEncodedBuildIsRefusedBecauseItsBodyCouldSelectBuildKit() {
        Refusal r = refusal(onHead("POST", "/v1.50/build", Map.of("content-type", List.of("Application/X-WWW-Form-Urlencoded; charset=utf-8"))));
        assertThat(r.rule()).isEqualTo("buildkit");
    }

    @Test
    void tcpUpgradeForAttachStreamsThrough() {
        assertThat(onHead("POST", "/v1.50/containers/abc/attach?stream=1", Map.of("upgrade", List.of("tcp"), "connection", List.of("Upgrade"))))
                .isEqualTo(new HeadVerdict.Pass());
    }

    @Test
    void buildKitPassesWhenTheDaemonsDeviceEntitlementIsDisabled() {
        assertThat(POLICY.onHead(new RequestHead("POST", "/v1.50/session", Map.of("upgrade", List.of("h2c"))), BUILDKIT_SAFE_REPO))
                .isEqualTo(new HeadVerdict.Pass());
        assertThat(POLICY.onHead(new RequestHead("POST", "/v1.50/build?version=2", Map.of()), BUILDKIT_SAFE_REPO))
                .isEqualTo(new HeadVerdict.Pass());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/v1.50/swarm/init", "/v1.50/swarm/join", "/swarm/join"})
    void joiningOrCreatingASwarmIsRefused(String uri) {
        Refusal r = refusal(onHead("POST", uri));
        assertThat(r.rule()).isEqualTo("swarm-membership");
    }

    @Test
    void pluginCreateIsRefusedOutright() {
        Refusal r = refusal(onHead("POST", "/v1.50/plugins/create?name=x"));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("plugin-management");
        assertThat(r.message()).contains("machine owner's act");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/v1.50/containers/%zzcreate", "/v1.50/containers/create%", "/v1.50/containers/create\u0000", "containers/create",
            ":/containers/create", ""})
    void targetGoWouldRejectIsRefused(String uri) {
        Refusal r = refusal(onHead("POST", uri));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.rule()).isEqualTo("request-target");
    }

    @Test
    void opaqueAbsoluteTargetRoutesNowhereAndIsRefused() {
        assertThat(refusal(onHead("POST", "mailto:containers/create")).rule()).isEqualTo("unknown-route");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"GET, /v1.50/containers/abc/secret", "GET, /v1.50/containers/create", "POST, /v1.50/containers/json", "PATCH, /v1.50/containers/abc/json",
            "PRX, *", "GET, /v1.50/nothing", "POST, /v1.50/containers/abc/archive", "HEAD, /v1.50/containers/json"})
    void routesTheDaemonDoesNotHaveAreRefused404(String method, String uri) {
        Refusal r = refusal(onHead(method, uri));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.rule()).isEqualTo("unknown-route");
        assertThat(r.message()).contains("has no route " + method);
    }

    @Test
    void aVersionAboveTheTablesAndTheHttp2PrefaceAreRefused() {
        Refusal version = refusal(onHead("GET", "/v1.99/containers/json"));
        assertThat(version.status()).isEqualTo(400);
        assertThat(version.rule()).isEqualTo("api-version");
        assertThat(version.message()).contains("1.99").contains("DOCKER_API_VERSION=");
        assertThat(onHead("GET", "/v1.56/containers/json")).isEqualTo(new HeadVerdict.Pass());
        assertThat(onHead("GET", "/v1.24/containers/json")).isEqualTo(new HeadVerdict.Pass());
        Refusal pri = refusal(onHead("PRI", "*"));
        assertThat(pri.status()).isEqualTo(505);
        assertThat(pri.rule()).isEqualTo("http-version");
    }

    /** A gate that verifies daemons: the repo's daemon answered ok, and GET /version as given (null: not read). */
    private static GrantLookup daemonServing(ApiVersions versions, String state) {
        return new GrantLookup() {
            @Override
            public boolean loaded() {
                return true;
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                return false;
            }

            @Override
            public io.rediacc.gpu.contracts.events.DaemonStatus daemon(String repoGuid) {
                return new io.rediacc.gpu.contracts.events.DaemonStatus(REPO.name(), repoGuid, state, null, null);
            }

            @Override
            public ApiVersions apiVersions(String repoGuid) {
                return versions;
            }
        };
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"/v1.51/containers/json, too new, DOCKER_API_VERSION=1.50", "/v1.23/containers/json, too old, DOCKER_API_VERSION=1.24",
            "/v1.50.1/containers/json, too new, DOCKER_API_VERSION=1.50", "/v1.2/info, too old, DOCKER_API_VERSION=1.24"})
    void aVersionOutsideWhatTheDaemonServesIsRefusedNamingItsRange(String uri, String why, String fix) {
        GrantLookup daemon = daemonServing(new ApiVersions("1.24", "1.50"), "ok");

        Refusal r = refusal(POLICY.onHead(new RequestHead("GET", uri, Map.of()), REPO, daemon));

        assertThat(r.status()).isEqualTo(400);
        assertThat(r.rule()).isEqualTo("api-version");
        assertThat(r.message()).contains("is " + why).contains("serves API versions 1.24 to 1.50").contains(fix);
    }

    @Test
    void versionsTheDaemonServesAndRequestsWithoutAVersionPass() {
        GrantLookup daemon = daemonServing(new ApiVersions("1.24", "1.50"), "ok");
        for (String uri : List.of("/v1.50/containers/json", "/v1.24/containers/json", "/v1.50.0/containers/json", "/containers/json")) {
            assertThat(POLICY.onHead(new RequestHead("GET", uri, Map.of()), REPO, daemon)).as(uri).isEqualTo(new HeadVerdict.Pass());
        }
    }

    @Test
    void whileTheDaemonsVersionsAreUnknownAVersionedRequestWaits() {
        for (String state : List.of("unchecked", "unreachable")) {
            GrantLookup daemon = daemonServing(null, state);

            Refusal r = refusal(POLICY.onHead(new RequestHead("GET", "/v1.44/containers/json", Map.of()), REPO, daemon));

            assertThat(r.status()).isEqualTo(503);
            assertThat(r.rule()).isEqualTo("api-versions-unknown");
            assertThat(r.message()).contains("GET /version").contains("retry");
            assertThat(POLICY.onHead(new RequestHead("HEAD", "/_ping", Map.of()), REPO, daemon)).isEqualTo(new HeadVerdict.Pass());
        }
    }

    /**
     * The daemon serves a request without a version prefix as its own ApiVersion: the gate forwards it
     * with that version (capped at the newest it knows), so the daemon serves exactly what was judged.
     */
    @Test
    void anUnversionedRequestIsForwardedAsTheVersionTheDaemonWouldServeItAs() {
        GrantLookup older = daemonServing(new ApiVersions("1.24", "1.51"), "ok");
        GrantLookup newer = daemonServing(new ApiVersions("1.40", "1.60"), "ok");

        assertThat(POLICY.versionedTarget(new RequestHead("POST", "/containers/create?name=x", Map.of()), REPO, older))
                .isEqualTo("/v1.51/containers/create?name=x");
        assertThat(POLICY.versionedTarget(new RequestHead("HEAD", "/_ping", Map.of()), REPO, older)).isEqualTo("/v1.51/_ping");
        assertThat(POLICY.versionedTarget(new RequestHead("POST", "/containers/create", Map.of()), REPO, newer))
                .as("a daemon newer than the gate serves it as the newest version the gate knows").isEqualTo("/v1.56/containers/create");
        assertThat(POLICY.versionedTarget(new RequestHead("POST", "/v1.44/containers/create", Map.of()), REPO, older)).isNull();
        assertThat(POLICY.versionedTarget(new RequestHead("POST", "/%761.44/containers/create", Map.of()), REPO, older)).isNull();
        assertThat(POLICY.versionedTarget(new RequestHead("POST", "/containers/create", Map.of()), REPO, grants()))
                .as("nothing verifies daemons: nothing known to add").isNull();
        assertThat(POLICY.versionedTarget(new RequestHead("POST", "/containers/create", Map.of()), REPO, daemonServing(null, "unchecked")))
                .isNull();
    }

    @Test
    void anUnversionedRequestTheGateCannotVersionIsJudgedAsTheDaemonsOwnVersion() {
        GrantLookup newer = daemonServing(new ApiVersions("1.40", "1.60"), "ok");
        Refusal absolute = refusal(POLICY.onHead(new RequestHead("POST", "http://d/containers/create", Map.of()), REPO, newer));
        assertThat(absolute.status()).isEqualTo(400);
        assertThat(absolute.rule()).isEqualTo("api-version");
        assertThat(absolute.message()).contains("would serve it as its own, 1.60").contains("/v1.56/containers/create");

        GrantLookup unknown = daemonServing(null, "unchecked");
        Refusal waits = refusal(POLICY.onHead(new RequestHead("GET", "/containers/json", Map.of()), REPO, unknown));
        assertThat(waits.status()).isEqualTo(503);
        assertThat(waits.rule()).isEqualTo("api-versions-unknown");
        assertThat(POLICY.onHead(new RequestHead("GET", "/version", Map.of()), REPO, unknown)).isEqualTo(new HeadVerdict.Pass());
    }
}
