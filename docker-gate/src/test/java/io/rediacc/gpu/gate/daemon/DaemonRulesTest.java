package io.rediacc.gpu.gate.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a repo daemon's GET /info must say for the gate's decisions to hold. */
class DaemonRulesTest {

    private static final List<String> PRODUCT = List.of("/etc/cdi");

    private static DaemonInfo info(String json) {
        return DaemonInfo.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void runcAndExactlyTheProductsSpecDirIsFit() {
        DaemonInfo fit = info("""
                {"DefaultRuntime":"runc","Runtimes":{"runc":{"path":"runc"},"nvidia":{"path":"nvidia-container-runtime"}},
                 "CDISpecDirs":["/etc/cdi/"],"DockerRootDir":"/mnt/rediacc/mounts/g/.rediacc/docker/data","ServerVersion":"28.5.1"}""");

        assertThat(DaemonRules.problems(fit, PRODUCT)).isEmpty();
        assertThat(fit.dockerRootDir()).isEqualTo("/mnt/rediacc/mounts/g/.rediacc/docker/data");
    }

    @Test
    void aNvidiaDefaultRuntimeIsMisconfiguredWithTheDaemonJsonFix() {
        List<String> problems = DaemonRules.problems(info("{\"DefaultRuntime\":\"nvidia\",\"CDISpecDirs\":[\"/etc/cdi\"]}"), PRODUCT);

        assertThat(problems).singleElement().asString()
                .contains("DefaultRuntime is \"nvidia\", not runc")
                .contains("NVIDIA_VISIBLE_DEVICES")
                .contains("\"default-runtime\": \"runc\"");
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"crun\"}"), PRODUCT)).singleElement().asString()
                .contains("not runc");
        assertThat(DaemonRules.problems(info("{\"CDISpecDirs\":[\"/etc/cdi\"]}"), PRODUCT)).singleElement().asString()
                .contains("no DefaultRuntime");
    }

    @Test
    void aRuntimeNamedRuncThatRunsNvidiasIsMisconfigured() {
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\",\"Runtimes\":{\"runc\":{\"path\":\"/usr/bin/nvidia-container-runtime\"}}}"),
                PRODUCT)).singleElement().asString().contains("the runtime named runc runs");
    }

    @Test
    void cdiSpecDirsMustBeExactlyTheProducts() {
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\",\"CDISpecDirs\":[\"/etc/cdi\",\"/var/run/cdi\"]}"), PRODUCT))
                .singleElement().asString()
                .contains("CDISpecDirs is [\"/etc/cdi\", \"/var/run/cdi\"], not exactly [\"/etc/cdi\"]")
                .contains("\"cdi-spec-dirs\": [\"/etc/cdi\"]");
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\",\"CDISpecDirs\":[\"/mnt/rediacc/mounts/g/cdi\"]}"), PRODUCT))
                .singleElement().asString().contains("not exactly");
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\",\"CDISpecDirs\":[]}"), PRODUCT))
                .singleElement().asString().contains("CDI is disabled").contains("\"features\": {\"cdi\": true}");
        // a test root's spec directory, configured for the gate
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\",\"CDISpecDirs\":[\"/tmp/root/etc/cdi\"]}"),
                List.of("/tmp/root/etc/cdi"))).isEmpty();
    }

    @Test
    void aDaemonThatDoesNotReportCdiSpecDirsIsJudgedOnItsRuntimeOnly() {
        // before API 1.44 (Docker 25.0) the field does not exist
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\"}"), PRODUCT)).isEmpty();
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"runc\",\"CDISpecDirs\":null}"), PRODUCT)).isEmpty();
    }

    @Test
    void bothProblemsAreNamed() {
        assertThat(DaemonRules.problems(info("{\"DefaultRuntime\":\"nvidia\",\"CDISpecDirs\":[\"/var/run/cdi\"]}"), PRODUCT))
                .hasSize(2);
    }

    @Test
    void anAnswerThatIsNotInfoIsAnError() {
        assertThatThrownBy(() -> info("[]")).hasMessageContaining("not answer a JSON object");
        assertThatThrownBy(() -> info("{\"CDISpecDirs\":\"/etc/cdi\"}")).hasMessageContaining("not an array");
        assertThatThrownBy(() -> info("<html>")).hasMessageContaining("did not answer JSON");
        assertThat(info("{\"DefaultRuntime\":\"runc\",\"Runtimes\":{\"runc\":{}}}").runtimePaths()).isEqualTo(Map.of("runc", ""));
    }

    @Test
    void settingsRefuseWhatCannotBeAProductSpecDir() {
        assertThatThrownBy(() -> new DaemonCheckSettings(DaemonCheckSettings.DEFAULTS.interval(),
                DaemonCheckSettings.DEFAULTS.retryInterval(), List.of("etc/cdi"))).hasMessageContaining("not an absolute path");
        assertThatThrownBy(() -> new DaemonCheckSettings(DaemonCheckSettings.DEFAULTS.interval(),
                DaemonCheckSettings.DEFAULTS.retryInterval(), List.of())).hasMessageContaining("at least one");
    }
}
