package io.rediacc.gpu.gate.policy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grantsNotLoaded;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.post;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.send;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.withHostConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every refusal carries its fix on its own (the command or setting that fixes it) beside the
 * message the docker CLI prints, so the gate's error body, its decision events and the dashboard
 * show it without reading the message.
 */
class RefusalFixTest {

    private static final String ANY = DeviceSuggestions.ANY_GRANTED;

    @Test
    void aRefusalCannotBeMadeWithoutAFix() {
        assertThatThrownBy(() -> new Refusal(403, RefusalMessages.RULE_PRIVILEGED, null, "privileged mode is refused", null))
                .hasMessageContaining("names its fix");
        assertThatThrownBy(() -> new Refusal(403, RefusalMessages.RULE_PRIVILEGED, null, "privileged mode is refused", " "))
                .hasMessageContaining("names its fix");
    }

    /** The refusals whose Fix column on the dashboard showed "-" although their message named the fix (issue 33). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            privileged         | "Privileged":true                       | remove --privileged (compose: privileged: true) and attach granted devices with --device <vendor>/<class>=<device>
            runtime            | "Runtime":"nvidia"                      | remove --runtime nvidia and write --device nvidia.com/gpu=all instead (compose: remove runtime: nvidia and write devices: [nvidia.com/gpu=all])
            device-cgroup-rule | "DeviceCgroupRules":["c 195:* rwm"]     | request the device by its granted CDI name instead (--device <vendor>/<class>=<device>)
            capability         | "CapAdd":["SYS_ADMIN"]                  | remove --cap-add SYS_ADMIN (compose: cap_add)
            """)
    void theFixOnItsOwnIsTheClauseTheMessageEndsWith(String rule, String hostConfig, String fix) {
        Refusal r = refusal(create(withHostConfig(hostConfig), grants()));

        assertThat(r.rule()).isEqualTo(rule);
        assertThat(r.fix()).isEqualTo(fix);
        assertThat(r.message()).endsWith("; " + fix);
    }

    @Test
    void execPrivilegedsFixIsToRunExecWithoutIt() {
        Refusal r = refusal(send("/v1.50/containers/c1/exec", "{\"Cmd\":[\"true\"],\"Privileged\":true}", grants()));

        assertThat(r.rule()).isEqualTo(RefusalMessages.RULE_EXEC_PRIVILEGED);
        assertThat(r.fix()).isEqualTo("run exec without --privileged");
        assertThat(r.message()).endsWith("; run exec without --privileged");
    }

    @Test
    void aMissingGrantsFixIsTheGrantCommandWithoutTheNotesAfterIt() {
        Refusal r = refusal(create(withHostConfig("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":"
                + "[\"nvidia.com/gpu=1\",\"nvidia.com/gpu=2\"]}]"), grants()));

        assertThat(r.rule()).isEqualTo(RefusalMessages.RULE_NOT_GRANTED);
        assertThat(r.fix()).isEqualTo("rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=1");
        assertThat(r.message()).contains(r.fix()).contains("(also not granted: nvidia.com/gpu=2)");
    }

    @Test
    void aFixNamingTheMachineGenericallyIsFilledInLikeTheMessage() {
        Refusal r = refusal(create(withHostConfig("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu\"]}]"),
                grants()));

        assertThat(r.rule()).isEqualTo(RefusalMessages.RULE_CDI_INVALID);
        assertThat(r.fix()).contains("rdc machine gpu list m1").doesNotContain("<machine>");
    }

    /** A refusal of each kind the body and head rules produce: each has a fix that is not empty. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            gpus-request          | {"HostConfig":{"DeviceRequests":[{"Driver":"nvidia","Count":-1,"Capabilities":[["gpu"]]}]}}
            device-driver         | {"HostConfig":{"DeviceRequests":[{"Driver":"amd","DeviceIDs":["0"]}]}}
            cdi-request-shape     | {"HostConfig":{"DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=0"],"Count":1}]}}
            raw-device            | {"HostConfig":{"Devices":[{"PathOnHost":"/dev/nvidia0","PathInContainer":"/dev/nvidia0","CgroupPermissions":"rwm"}]}}
            cdi-name-in-devices   | {"HostConfig":{"Devices":[{"PathOnHost":"nvidia.com/gpu=0","PathInContainer":"","CgroupPermissions":"rwm"}]}}
            device-env            | {"Env":["NVIDIA_VISIBLE_DEVICES=all"]}
            host-namespace        | {"HostConfig":{"PidMode":"host"}}
            system-paths          | {"HostConfig":{"SecurityOpt":["systempaths=unconfined"]}}
            host-path             | {"HostConfig":{"Binds":["/dev:/dev"]}}
            security-opt          | {"HostConfig":{"SecurityOpt":["writable-cgroups=true"]}}
            top-level-host-config | {"Privileged":true}
            body-duplicate-key    | {"Image":"a","image":"b"}
            body-not-json         | {"Image":
            body-field-type       | {"HostConfig":{"Privileged":"yes"}}
            """)
    void everyRefusalKindCarriesAFix(String rule, String body) {
        Refusal r = refusal(create(body, grants()));

        assertThat(r.rule()).isEqualTo(rule);
        assertThat(r.fix()).isNotBlank();
    }

    @Test
    void refusalsOfTheHeadAndOfTheGrantsCarryAFix() {
        Refusal route = refusal(POLICY.onHead(post("/v1.50/containers/create/", utf8("{}")), REPO));
        Refusal version = refusal(POLICY.onHead(post("/v9.99/containers/create", utf8("{}")), REPO));
        Refusal notLoaded = refusal(create(withHostConfig("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]"),
                grantsNotLoaded()));

        assertThat(route.rule()).isEqualTo(RefusalMessages.RULE_UNKNOWN_ROUTE);
        assertThat(route.fix()).isNotBlank();
        assertThat(version.rule()).isEqualTo(RefusalMessages.RULE_API_VERSION);
        assertThat(version.fix()).isEqualTo("DOCKER_API_VERSION=" + DockerRouteTable.MAX_API_VERSION);
        assertThat(notLoaded.rule()).isEqualTo(RefusalMessages.RULE_GRANTS_NOT_LOADED);
        assertThat(notLoaded.fix()).isEqualTo("retry in a few seconds");
        assertThat(ANY).isNotBlank();
    }
}
