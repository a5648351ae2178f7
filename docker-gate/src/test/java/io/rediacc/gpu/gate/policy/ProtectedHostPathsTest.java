package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.post;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.withHostConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Deployment-specific host paths (the daemon's socket, CDI spec directories) are protected like /dev. */
class ProtectedHostPathsTest {

    private static final GatePolicy POLICY = new GatePolicy(PolicyTestKit.MAX_BODY,
            List.of("/run/rediacc/gpu-a/docker.sock", "/etc/cdi/"));

    private static Verdict bind(String bind) {
        byte[] body = utf8(withHostConfig("\"Binds\":[\"" + bind + "\"]"));
        return POLICY.onBody(post("/v1.50/containers/create", body), body, REPO, grants());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/run/rediacc/gpu-a/docker.sock:/var/run/docker.sock", "/run/rediacc:/r", "/run:/run", "/etc/cdi:/cdi",
            "/etc/cdi/nvidia.yaml:/x", "/etc:/host-etc", "/var/../run/rediacc/:/r"})
    void bindReachingAProtectedPathIsRefused(String bind) {
        Refusal r = PolicyTestKit.refusal(bind(bind));
        assertThat(r.rule()).isEqualTo("host-path");
        assertThat(r.message()).contains("which repos must not reach on this machine");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/run/user/1000:/x", "/etc/ssl/certs:/certs:ro", "/etc/cdi-not:/x"})
    void bindBesideAProtectedPathIsAllowed(String bind) {
        assertThat(bind(bind)).isEqualTo(new Verdict.Allow());
    }

    @Test
    void protectedPathsMustBeAbsoluteAndNotTheRoot() {
        assertThatThrownBy(() -> new GatePolicy(1024, List.of("relative/path"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GatePolicy(1024, List.of("/"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GatePolicy(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
