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
            "/v1.50/v1.40/containers/create, /containers/create",
            "/v1.50, /",
            "/vx/containers/create, /vx/containers/create",
            "/version, /version",
            "/v1.50/version, /version",
            "/v1.50//containers/../containers/create/, /containers/create"})
    void versionPrefixAndDotSegmentsAreRemoved(String path, String routed) {
        assertThat(DockerRoute.routingPath(path)).isEqualTo(routed);
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
