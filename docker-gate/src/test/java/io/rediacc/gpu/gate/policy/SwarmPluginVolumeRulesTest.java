package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.send;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Endpoints other than container create that can reach hardware: volumes, swarm services, plugins, update. */
class SwarmPluginVolumeRulesTest {

    private static final String SERVICE = "/v1.50/services/create";

    private static String service(String taskTemplateMembers) {
        return "{\"Name\":\"web\",\"TaskTemplate\":{" + taskTemplateMembers + "},\"Mode\":{\"Replicated\":{\"Replicas\":1}}}";
    }

    @Test
    void ordinaryVolumeCreateIsAllowed() {
        assertThat(send("/v1.50/volumes/create", "{\"Name\":\"data\",\"Driver\":\"local\",\"DriverOpts\":{},\"Labels\":{}}", grants()))
                .isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"{\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"ext4\",\"device\":\"/dev/nvme0n1p1\"}}",
            "{\"DriverOpts\":{\"type\":\"sysfs\",\"device\":\"sysfs\"}}", "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/proc/1/root\"}}",
"{\"driveropts\":{\"o\":\"bind\",\"device\":\"//dev//dri\"}}"})
    void volumeCreateThatMountsADeviceOrKernelFileSystemIsRefused(String body) {
        assertThat(refusal(send("/v1.50/volumes/create", body, grants())).rule()).isEqualTo("volume-options");
    }

    @Test
    void ordinaryServiceIsAllowed() {
        assertThat(send(SERVICE, service("\"ContainerSpec\":{\"Image\":\"nginx\",\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"web\",\"Target\":\"/srv\"}],"
                + "\"CapabilityAdd\":[\"NET_ADMIN\"],\"Privileges\":{\"NoNewPrivileges\":true}},\"Resources\":{\"Limits\":{\"MemoryBytes\":1024},"
                + "\"Reservations\":{\"NanoCPUs\":1000}}"), grants())).isEqualTo(new Verdict.Allow());
    }

    @Test
    void serviceWithSwarmGenericResourcesIsRefused() {
        Refusal r = refusal(send(SERVICE, service("\"ContainerSpec\":{\"Image\":\"cuda\"},\"Resources\":{\"Reservations\":{\"GenericResources\":"
                + "[{\"DiscreteResourceSpec\":{\"Kind\":\"NVIDIA-GPU\",\"Value\":1}}]}}"), grants()));
        assertThat(r.rule()).isEqualTo("service-generic-resources");
    }

    @Test
    void serviceBindingDevIsRefused() {
        Refusal r = refusal(send(SERVICE, service("\"ContainerSpec\":{\"Image\":\"x\",\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/dev/dri\",\"Target\":\"/dev/dri\"}]}"),
                grants()));
        assertThat(r.rule()).isEqualTo("host-path");
    }

    @Test
    void serviceAddingSysAdminIsRefused() {
        Refusal r = refusal(send("/v1.50/services/web/update?version=3", service("\"ContainerSpec\":{\"Image\":\"x\",\"CapabilityAdd\":[\"CAP_SYS_ADMIN\"]}"), grants()));
        assertThat(r.rule()).isEqualTo("capability");
    }

    @Test
    void pluginServiceIsRefused() {
        Refusal r = refusal(send(SERVICE, service("\"Runtime\":\"plugin\",\"PluginSpec\":{\"Name\":\"vieux/sshfs\",\"Remote\":\"vieux/sshfs\"}"), grants()));
        assertThat(r.rule()).isEqualTo("service-plugin");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/v1.50/plugins/pull?remote=vieux/sshfs", "/v1.50/plugins/x/y:latest/upgrade?remote=x/y:2",
            "/v1.50/plugins/x/y:latest/set"})
    void pluginManagementIsRefusedWhateverItAsksFor(String uri) {
        // Even a plugin asking only for the network: installing plugins is the machine owner's act.
        Refusal r = refusal(send(uri, "[{\"Name\":\"network\",\"Description\":\"\",\"Value\":[\"host\"]}]", grants()));
        assertThat(r.rule()).isEqualTo("plugin-management");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Devices", "DeviceCgroupRules", "DeviceRequests", "deviceRequests"})
    void containerUpdateThatTouchesDevicesIsRefused(String field) {
        String value = field.equalsIgnoreCase("DeviceCgroupRules") ? "[\"c 195:* rwm\"]" : "[{}]";
        Refusal r = refusal(send("/v1.50/containers/abc/update", "{\"" + field + "\":" + value + "}", grants()));
        assertThat(r.rule()).isEqualTo("update-devices");
    }

    @Test
    void emptyBodyOnAnInspectedEndpointCarriesNoHardware() {
        assertThat(send("/v1.50/containers/create", "", grants())).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"{\"CgroupParent\":\"/system.slice\"}", "{\"BlkioDeviceReadBps\":[{\"Path\":\"/dev/sda\",\"Rate\":1}]}",
            "{\"Privileged\":true}", "{\"cgroupparent\":\"x\"}", "{\"NotAField\":1}"})
    void containerUpdateOfCgroupSettingsOrUnknownFieldsIsRefused(String body) {
        Refusal r = refusal(send("/v1.50/containers/abc/update", body, grants()));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("update-field");
        assertThat(r.message()).contains("resource limits").contains("restart policy");
    }

    @Test
    void containerUpdateOfLimitsAndRestartPolicyPassesTheBodyCheck() {
        assertThat(send("/v1.50/containers/abc/update", "{\"Memory\":1048576,\"CgroupParent\":\"\",\"Devices\":[],"
                + "\"RestartPolicy\":{\"Name\":\"always\"}}", grants())).isEqualTo(new Verdict.Allow());
    }
}
