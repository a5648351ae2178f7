package io.rediacc.gpu.gate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.rediacc.gpu.gate.policy.DockerRoute.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Classification on the path the daemon routes on. */
class DockerRouteTest {

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource({
            "/v1.50/containers/create, /containers/create",
            "/containers/create, /containers/create",
            "/v1/containers/create, /containers/create",
            "/v./containers/create, /containers/create",
            "/v1.50/v1.40/containers/create, /v1.40/containers/create",
            "/v1.50, /v1.50",
            "/V1.50/version, /V1.50/version",
            "/vx/containers/create, /vx/containers/create",
            "/v1.50/version, /version",
            "/v1.50/CONTAINERS/json/, /CONTAINERS/json/"})
    void oneLowerCaseVersionPrefixIsRemovedAndNothingElseChanges(String path, String routed) {
        assertThat(DockerRoute.routingPath(path)).isEqualTo(routed);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"/v1.50/containers/json, true", "/v1.50/networks/, true", "/v1.50//containers/json, false",
            "/v1.50/./info, false", "/v1.50/containers/../info, false", "/v1.50/containers/x../json, true", "'', false", "*, false"})
    void aPathTheDaemonRedirectsBeforeRoutingIsNotClean(String path, boolean clean) {
        assertThat(DockerRoute.clean(path)).isEqualTo(clean);
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource({"GET, /containers/json, true", "GET, /CONTAINERS/json, false", "GET, /containers/json/, false",
            "get, /containers/json, false", "GET, /networks/, true", "GET, /networks, true", "GET, /info/, false",
            "GET, /debug/pprof/, true", "POST, /containers/a/b/start, true"})
    void routesMatchAsGorillaMuxMatchesThem(String method, String path, boolean known) {
        assertThat(DockerRouteTable.known(method, path)).isEqualTo(known);
    }

    @Test
    void namesMayContainSlashesLikeTheDaemonsNamePattern() {
        DockerRoute route = DockerRoute.classify("POST", "/v1.50/services/registry.example:5000/team/web/update");
        assertThat(route.kind()).isEqualTo(Kind.SERVICE_UPDATE);
        assertThat(route.target()).isEqualTo("registry.example:5000/team/web");
    }

    @Test
    void absoluteFormUsesOnlyThePath() {
        DockerRoute route = DockerRoute.classify("POST", "http://user@host:2375/v1.50/containers/abc/start?x=1");
        assertThat(route.kind()).isEqualTo(Kind.CONTAINER_START);
        assertThat(route.target()).isEqualTo("abc");
        assertThat(route.requestTarget().rawQuery()).isEqualTo("x=1");
    }

    @Test
    void queryIsCutAtTheFirstQuestionMarkAndEncodedOnesStayInThePath() {
        DockerRoute route = DockerRoute.classify("POST", "/v1.50/containers/create%3Fname=x");
        assertThat(route.kind()).isEqualTo(Kind.OTHER);
        assertThat(route.path()).isEqualTo("/containers/create?name=x");
    }

    @Test
    void queryValuesAreDecodedLikeGoForms() {
        RequestTarget target = RequestTarget.parse("/build?version=%32&t=a+b&version=1");
        assertThat(target.queryValues("version")).containsExactly("2", "1");
        assertThat(target.queryValues("t")).containsExactly("a b");
    }
}
