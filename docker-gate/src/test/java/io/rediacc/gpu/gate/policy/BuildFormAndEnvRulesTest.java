package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.BUILDKIT_SAFE_REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Issue 13, items 7 and 8: /build bodies Go would read as forms, and Env entries that select devices. */
class BuildFormAndEnvRulesTest {

    private static HeadVerdict build(String... contentTypes) {
        return POLICY.onHead(new RequestHead("POST", "/v1.50/build?t=x",
                Map.of("content-type", List.of(contentTypes), "transfer-encoding", List.of("chunked"))), REPO);
    }

    @ParameterizedTest
    @ValueSource(strings = {"multipart/form-data; boundary=x", "Multipart/Form-Data;boundary=\"x\"",
            " multipart/form-data ; boundary=x", "multipart/form-data", "application/x-www-form-urlencoded",
            "APPLICATION/X-WWW-FORM-URLENCODED; charset=utf-8", "multipart/mixed; boundary=x", "text/plain",
            "application/json",
            // Go's strings.ToLower maps U+0130 (UTF-8 C4 B0, seen here as two Latin-1 chars) to 'i'
            "multÄ°part/form-data; boundary=x", "applÄ°cation/x-www-form-urlencoded"})
    void buildBodiesThatAreNotABuildContextAreRefusedAtTheHead(String contentType) {
        Refusal r = refusal(build(contentType));

        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("buildkit");
        assertThat(r.message()).contains("application/x-tar").contains("DOCKER_BUILDKIT=0");
    }

    @Test
    void aRepeatedContentTypeOnBuildIsRefused() {
        Refusal r = refusal(build("application/x-tar", "multipart/form-data; boundary=x"));

        assertThat(r.rule()).isEqualTo("buildkit");
        assertThat(r.message()).contains("repeated");
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/x-tar", "application/tar", "application/octet-stream", "", "APPLICATION/X-TAR"})
    void buildContextsPass(String contentType) {
        assertThat(build(contentType)).isEqualTo(new HeadVerdict.Pass());
        assertThat(POLICY.onHead(new RequestHead("POST", "/v1.50/build", Map.of()), REPO)).isEqualTo(new HeadVerdict.Pass());
    }

    @Test
    void aRepoWhoseBuildKitCannotGrantDevicesMayStillSendForms() {
        assertThat(POLICY.onHead(new RequestHead("POST", "/v1.50/build",
                Map.of("content-type", List.of("multipart/form-data; boundary=x"))), BUILDKIT_SAFE_REPO))
                .isEqualTo(new HeadVerdict.Pass());
    }

    @ParameterizedTest
    @ValueSource(strings = {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_VISIBLE_DEVICES=0,1",
            "NVIDIA_VISIBLE_DEVICES=GPU-4a99505f-3e4d-385e-a35f-88a51d075281", "NVIDIA_VISIBLE_DEVICES= void",
            "nvidia_visible_devices=all", " NVIDIA_VISIBLE_DEVICES =all", "NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=0",
            "AMD_VISIBLE_DEVICES=0", "AMD_VISIBLE_DEVICES=all", "DOCKER_RESOURCE_GPU=0", "DOCKER_RESOURCE_NVIDIA-GPU=GPU-1",
            "NVIDIA_MIG_CONFIG_DEVICES=all", "NVIDIA_MIG_MONITOR_DEVICES=all", "NVIDIA_IMEX_CHANNELS=0",
            "NVIDIA_GDS=enabled", "NVIDIA_MOFED=enabled", "NVIDIA_NVSWITCH=enabled", "NVIDIA_GDRCOPY=enabled",
            "NVIDIA_FUTURE_DEVICES=all", "HABANA_VISIBLE_DEVICES=all", "ASCEND_VISIBLE_DEVICES=0",
            "AWS_NEURON_VISIBLE_DEVICES=0"})
    void envEntriesThatSelectDevicesAreRefusedOnCreateExecAndServices(String entry) {
        String env = "[\"PATH=/usr/bin\",\"" + entry + "\"]";

        Refusal created = refusal(create("{\"Image\":\"ubuntu\",\"Env\":" + env + "}"));
        Refusal exec = refusal(send("/v1.50/containers/c1/exec", "{\"Cmd\":[\"sh\"],\"Env\":" + env + "}", grants()));
        Refusal service = refusal(send("/v1.50/services/create",
                "{\"TaskTemplate\":{\"ContainerSpec\":{\"Image\":\"ubuntu\",\"Env\":" + env + "}}}", grants()));

        for (Refusal r : List.of(created, exec, service)) {
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.rule()).isEqualTo("device-env");
            assertThat(r.message()).contains("-e " + entry).contains("--device ");
        }
        assertThat(exec.message()).startsWith("docker exec -e").contains("create it with --device");
    }

    @Test
    void theRefusalSpellsOutTheCdiReplacementAsForGpus() {
        assertThat(refusal(create("{\"Env\":[\"NVIDIA_VISIBLE_DEVICES=all\"]}")).message())
                .contains("write --device nvidia.com/gpu=all instead (compose: devices: [nvidia.com/gpu=all]");
        assertThat(refusal(create("{\"Env\":[\"NVIDIA_VISIBLE_DEVICES=0,1\"]}")).message())
                .contains("--device nvidia.com/gpu=0 --device nvidia.com/gpu=1");
        assertThat(refusal(create("{\"Env\":[\"AMD_VISIBLE_DEVICES=1\"]}")).message())
                .contains("--device rediacc.io/amd=gpu1");
    }

    @Test
    void everyDuplicateIsJudgedWhicheverWins() {
        // Go's env semantics: the last KEY= wins; refusing any selecting entry covers both orders.
        assertThat(refusal(create("{\"Env\":[\"NVIDIA_VISIBLE_DEVICES=void\",\"NVIDIA_VISIBLE_DEVICES=all\"]}")).rule())
                .isEqualTo("device-env");
        assertThat(refusal(create("{\"Env\":[\"NVIDIA_VISIBLE_DEVICES=all\",\"NVIDIA_VISIBLE_DEVICES=void\"]}")).rule())
                .isEqualTo("device-env");
        // keys fold like Go's JSON field names: "env" is Env
        assertThat(refusal(create("{\"env\":[\"NVIDIA_VISIBLE_DEVICES=all\"]}")).rule()).isEqualTo("device-env");
    }

    @ParameterizedTest
    @ValueSource(strings = {"NVIDIA_VISIBLE_DEVICES=void", "NVIDIA_VISIBLE_DEVICES=none", "NVIDIA_VISIBLE_DEVICES=",
            "NVIDIA_VISIBLE_DEVICES", "AMD_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES=0", "NVIDIA_DRIVER_CAPABILITIES=all",
            "HIP_VISIBLE_DEVICES=0", "MY_NVIDIA_VISIBLE_DEVICES=all", "X=NVIDIA_VISIBLE_DEVICES=all"})
    void envThatSelectsNothingPasses(String entry) {
        assertThat(create("{\"Image\":\"ubuntu\",\"Env\":[\"" + entry + "\"]}")).isEqualTo(new Verdict.Allow());
        assertThat(send("/v1.50/containers/c1/exec", "{\"Env\":[\"" + entry + "\"]}", grants())).isEqualTo(new Verdict.Allow());
    }

    @Test
    void aNonStringEnvIsNotGuessedAt() {
        assertThat(refusal(create("{\"Env\":\"NVIDIA_VISIBLE_DEVICES=all\"}")).rule()).isEqualTo("body-field-type");
        assertThat(refusal(create("{\"Env\":[1]}")).rule()).isEqualTo("body-field-type");
    }
}
