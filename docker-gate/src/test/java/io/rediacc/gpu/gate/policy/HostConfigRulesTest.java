package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.withHostConfig;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Field by field: what a container's HostConfig may and may not carry. */
class HostConfigRulesTest {

    private static Refusal refused(String hostConfigMembers) {
        return refusal(create(withHostConfig(hostConfigMembers), grants("nvidia.com/gpu=0")));
    }

    private static Verdict verdict(String hostConfigMembers) {
        return create(withHostConfig(hostConfigMembers), grants("nvidia.com/gpu=0", "rediacc.io/dri=renderD128"));
    }

    @ParameterizedTest(name = "Binds {0}")
    @ValueSource(strings = {"/dev:/dev", "/dev/dri:/dev/dri", "/dev/dri/renderD128:/dev/dri/renderD128:rw", "//dev:/x", "/dev/../dev:/x",
            "/dev/:/x", "/./dev/:/x:ro", "/:/host", "//:/host", "/proc:/host/proc:ro", "/proc/1/root:/host", "/proc/self/root/dev:/d",
            "/proc/thread-self/root:/r", "/sys:/sys", "/sys/bus/pci:/pci", "/var/../dev/kfd:/dev/kfd", "/dev\u0000/x:/x"})
    void bindReachingDevProcSysOrTheRootIsRefused(String bind) {
        Refusal r = refused("\"Binds\":[\"" + bind.replace("\u0000", "\\u0000") + "\"]");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("host-path");
    }

    @ParameterizedTest(name = "Binds {0}")
    @ValueSource(strings = {"/data:/data", "/home/gpu-a/work:/work:ro", "/devices:/x", "/dev2:/x", "/process:/x", "/system:/x",
            "named-volume:/data", "dev:/dev", "/dev", "/var/lib/app:/dev/shm/x"})
    void bindOfOrdinaryDirectoriesAndVolumesIsAllowed(String bind) {
        assertThat(verdict("\"Binds\":[\"" + bind + "\"]")).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "Mounts type {0} source {1}")
    @CsvSource({"bind, /dev/dri", "bind, /dev/../dev", "bind, /", "bind, /proc/1/root", "bind, /sys/class", "volume, /dev", "tmpfs, /dev/shm",
            "'', /dev"})
    void mountReachingDevProcSysOrTheRootIsRefused(String type, String source) {
        Refusal r = refused("\"Mounts\":[{\"Type\":\"" + type + "\",\"Source\":\"" + source + "\",\"Target\":\"/x\"}]");
        assertThat(r.rule()).isEqualTo("host-path");
    }

    @Test
    void ordinaryMountsAreAllowed() {
        assertThat(verdict("\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/data\",\"Target\":\"/data\",\"ReadOnly\":true},"
                + "{\"Type\":\"volume\",\"Source\":\"cache\",\"Target\":\"/cache\"},{\"Type\":\"tmpfs\",\"Target\":\"/dev/shm\"}]"))
                .isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "local volume options {0}")
    @ValueSource(strings = {"\"device\":\"/dev/sdb1\",\"type\":\"ext4\"", "\"type\":\"none\",\"o\":\"bind\",\"device\":\"/dev\"",
            "\"type\":\"none\",\"o\":\"rbind\",\"device\":\"/\"", "\"o\":\"bind\",\"device\":\"dev\"", "\"o\":\"bind\",\"device\":\".\"",
            "\"device\":\"/proc/1/root\",\"o\":\"bind\"", "\"type\":\"sysfs\",\"device\":\"sysfs\"", "\"type\":\"proc\",\"device\":\"proc\"",
            "\"type\":\"devtmpfs\",\"device\":\"devtmpfs\"", "\"type\":\"overlay\",\"o\":\"lowerdir=/dev\"", "\"Device\":\"/dev/kfd\""})
    void inlineLocalVolumeThatMountsADeviceIsRefused(String options) {
        Refusal r = refused("\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"v\",\"Target\":\"/x\",\"VolumeOptions\":{\"DriverConfig\":{\"Name\":\"local\",\"Options\":{"
                + options + "}}}}]");
        assertThat(r.rule()).isEqualTo("volume-options");
    }

    @ParameterizedTest(name = "local volume options {0}")
    @ValueSource(strings = {"\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=100m\"", "\"size\":\"1G\"",
            "\"type\":\"none\",\"o\":\"bind\",\"device\":\"/srv/data\""})
    void inlineLocalVolumeOfAnOrdinaryFileSystemIsAllowed(String options) {
        assertThat(verdict("\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"vol\",\"Target\":\"/x\",\"VolumeOptions\":{\"DriverConfig\":{\"Options\":{"
                + options + "}}}}]")).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "CapAdd {0}")
    @ValueSource(strings = {"SYS_ADMIN", "CAP_SYS_ADMIN", "sys_admin", "ſys_admin", "ALL", "all", "SYS_RAWIO", "SYS_MODULE", "BPF",
            "DAC_READ_SEARCH", "cap_dac_read_search"})
    void capabilityThatGetsAroundTheDeviceCgroupIsRefused(String capability) {
        Refusal r = refused("\"CapAdd\":[\"NET_ADMIN\",\"" + capability + "\"]");
        assertThat(r.rule()).isEqualTo("capability");
        assertThat(r.message()).contains("--cap-add");
    }

    @Test
    void composeCdiDriverWithDeviceIdsAndCapabilitiesGpuIsAdmittedForGrantedNames() {
        // compose: deploy.resources.reservations.devices: [{driver: cdi, device_ids: [nvidia.com/gpu=0], capabilities: [gpu]}]
        String compose = withHostConfig("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":0,"
                + "\"DeviceIDs\":[\"nvidia.com/gpu=0\"],\"Capabilities\":[[\"gpu\"]],\"Options\":{}}]");
        assertThat(PolicyTestKit.send("/v1.50/containers/create", compose, grants("nvidia.com/gpu=0")))
                .isEqualTo(new Verdict.Allow());
        assertThat(refusal(PolicyTestKit.send("/v1.50/containers/create", compose, grants())).rule()).isEqualTo("cdi-not-granted");
        String withCount = compose.replace("\"Count\":0", "\"Count\":1");
        assertThat(refusal(PolicyTestKit.send("/v1.50/containers/create", withCount, grants("nvidia.com/gpu=0"))).rule())
                .isEqualTo("cdi-request-shape");
        String withOptions = compose.replace("\"Options\":{}", "\"Options\":{\"x\":\"y\"}");
        assertThat(refusal(PolicyTestKit.send("/v1.50/containers/create", withOptions, grants("nvidia.com/gpu=0"))).rule())
                .isEqualTo("cdi-request-shape");
    }

    @Test
    void commonCapabilitiesForGpuWorkAreAllowed() {
        assertThat(verdict("\"CapAdd\":[\"SYS_PTRACE\",\"IPC_LOCK\",\"SYS_NICE\",\"NET_ADMIN\",\"CAP_SYS_RESOURCE\",\"MKNOD\"],\"CapDrop\":[\"ALL\"]"))
                .isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "Runtime {0}")
    @ValueSource(strings = {"nvidia", "NVIDIA", "nvidia-container-runtime", "runsc", "kata", "io.containerd.runc.v2", "Runc", " runc"})
    void runtimeOtherThanRuncIsRefused(String runtime) {
        assertThat(refused("\"Runtime\":\"" + runtime + "\"").rule()).isEqualTo("runtime");
    }

    @ParameterizedTest(name = "Runtime {0}")
    @ValueSource(strings = {"\"runc\"", "\"\"", "null"})
    void runcOrTheDefaultRuntimeIsAllowed(String runtime) {
        assertThat(verdict("\"Runtime\":" + runtime)).isEqualTo(new Verdict.Allow());
    }

    @Test
    void emptyOrNullDeviceFieldsAreAllowed() {
        assertThat(verdict("\"Devices\":[],\"DeviceCgroupRules\":[],\"DeviceRequests\":[],\"Privileged\":false,\"CapAdd\":null,\"Binds\":null"))
                .isEqualTo(new Verdict.Allow());
    }

    @Test
    void nullPrivilegedKeepsTheDefaultLikeGo() {
        assertThat(verdict("\"Privileged\":null")).isEqualTo(new Verdict.Allow());
    }

    @Test
    void devicesWithAnEmptyPathIsStillRefused() {
        assertThat(refused("\"Devices\":[{}]").rule()).isEqualTo("raw-device");
        assertThat(refused("\"Devices\":[null]").rule()).isEqualTo("raw-device");
    }

    @Test
    void cdiNameInDevicesSaysToUseACdiCapableClient() {
        Refusal r = refused("\"Devices\":[{\"PathOnHost\":\"nvidia.com/gpu=0\",\"PathInContainer\":\"nvidia.com/gpu=0\",\"CgroupPermissions\":\"rwm\"}]");
        assertThat(r.rule()).isEqualTo("cdi-name-in-devices");
        assertThat(r.message()).contains("treats it as a host path").contains("docker CLI 25 or later (--device nvidia.com/gpu=0)")
                .contains("\"Driver\":\"cdi\"");
    }

    @Test
    void deviceCgroupRuleWithAnEmptyStringIsStillRefused() {
        assertThat(refused("\"DeviceCgroupRules\":[\"\"]").rule()).isEqualTo("device-cgroup-rule");
    }

    @Test
    void composeDeployReservationIsRefusedAndSaysToWriteDevices() {
        Refusal r = refused("\"DeviceRequests\":[{\"Driver\":\"nvidia\",\"Count\":-1,\"DeviceIDs\":null,\"Capabilities\":[[\"gpu\"]],\"Options\":{}}]");
        assertThat(r.rule()).isEqualTo("gpus-request");
        assertThat(r.message()).contains("deploy.resources.reservations.devices").contains("devices: [nvidia.com/gpu=all]");
    }

    @Test
    void composeLongFormGpusIsRefusedInTermsOfTheGpusKey() {
        // gpus: [{driver: nvidia, count: 1}] reaches the daemon as driver nvidia with capabilities [gpu] (compose appends it)
        Refusal r = refused("\"DeviceRequests\":[{\"Driver\":\"nvidia\",\"Count\":1,\"DeviceIDs\":null,\"Capabilities\":[[\"gpu\"]],\"Options\":null}]");
        assertThat(r.rule()).isEqualTo("gpus-request");
        assertThat(r.message()).startsWith("compose gpus: (driver \"nvidia\"")
                .contains("remove the gpus: key and write the granted CDI names as devices: [nvidia.com/gpu=0]");
    }

    @Test
    void composeDeployWithDeviceIdsSuggestsTheMatchingNames() {
        Refusal r = refused("\"DeviceRequests\":[{\"Driver\":\"nvidia\",\"DeviceIDs\":[\"0\",\"GPU-2f1c7f6a-6b1e-4e0e-9a1b-1c2d3e4f5a6b\"],\"Capabilities\":[[\"gpu\",\"utility\"]]}]");
        assertThat(r.message()).contains("devices: [nvidia.com/gpu=0, nvidia.com/gpu=GPU-2f1c7f6a-6b1e-4e0e-9a1b-1c2d3e4f5a6b]");
    }

    @Test
    void amdDriverRequestIsRefusedAsAnotherDriver() {
        Refusal r = refused("\"DeviceRequests\":[{\"Driver\":\"amd\",\"DeviceIDs\":[\"rediacc.io/amd=gpu0\"]}]");
        assertThat(r.rule()).isEqualTo("device-driver");
        assertThat(r.message()).contains("--device rediacc.io/amd=gpu0");
    }

    @Test
    void everyNameOfEveryCdiRequestMustBeGranted() {
        Refusal r = refusal(create(withHostConfig("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]},"
                + "{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=1\",\"rediacc.io/dri=renderD129\"]}]"), grants("nvidia.com/gpu=0")));
        assertThat(r.device()).isEqualTo("nvidia.com/gpu=1");
        assertThat(r.message()).endsWith("(also not granted: rediacc.io/dri=renderD129)");
    }

    @Test
    void severalGrantedCdiDevicesAreAdmitted() {
        assertThat(verdict("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":0,\"DeviceIDs\":[\"nvidia.com/gpu=0\",\"rediacc.io/dri=renderD128\"],"
                + "\"Capabilities\":[],\"Options\":{}}],\"GroupAdd\":[\"video\",\"render\"]")).isEqualTo(new Verdict.Allow());
    }

    @Test
    void cdiRequestWithoutNamesAttachesNothingAndIsAllowed() {
        assertThat(verdict("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[]}]")).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "SecurityOpt {0}")
    @ValueSource(strings = {"systempaths=unconfined", "systempaths:unconfined", "writable-cgroups=true", "writable-cgroups=1",
            "writable-cgroups=yes"})
    void securityOptionThatOpensDevicePathsIsRefused(String option) {
        Refusal r = refused("\"SecurityOpt\":[\"" + option + "\"]");
        assertThat(r.rule()).isIn("system-paths", "security-opt");
    }

    @Test
    void confinementOptionsThatOpenNoDeviceAreAllowed() {
        assertThat(verdict("\"SecurityOpt\":[\"apparmor=unconfined\",\"seccomp=unconfined\",\"label=disable\",\"no-new-privileges\",\"writable-cgroups=false\"]"))
                .isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\"MaskedPaths\":[]", "\"ReadonlyPaths\":[]", "\"MaskedPaths\":[\"/proc/kcore\"]"})
    void anyMaskedOrReadonlyPathListInARequestIsRefused(String field) {
        assertThat(refused(field).rule()).isEqualTo("system-paths");
    }

    @Test
    void hostPidNamespaceIsRefused() {
        Refusal r = refused("\"PidMode\":\"host\"");
        assertThat(r.rule()).isEqualTo("host-namespace");
        assertThat(r.message()).contains("--pid host");
    }

    @Test
    void hostIpcNamespaceIsRefused() {
        assertThat(refused("\"IpcMode\":\"host\"").message()).contains("--ipc host");
    }

    @Test
    void otherNamespaceAndSharingModesAreAllowed() {
        assertThat(verdict("\"PidMode\":\"container:abc\",\"IpcMode\":\"shareable\",\"NetworkMode\":\"host\",\"UTSMode\":\"host\","
                + "\"UsernsMode\":\"host\",\"CgroupnsMode\":\"host\",\"VolumesFrom\":[\"other:ro\"],\"ShmSize\":8589934592,"
                + "\"Ulimits\":[{\"Name\":\"memlock\",\"Soft\":-1,\"Hard\":-1}]")).isEqualTo(new Verdict.Allow());
    }

    @Test
    void cdiInjectionAnnotationIsRefused() {
        assertThat(refused("\"Annotations\":{\"cdi.k8s.io/gpu\":\"nvidia.com/gpu=all\"}").rule()).isEqualTo("cdi-annotation");
    }

    @Test
    void ordinaryAnnotationsAreAllowed() {
        assertThat(verdict("\"Annotations\":{\"org.example/team\":\"ml\"}")).isEqualTo(new Verdict.Allow());
    }

    @Test
    void refusalsAreIndependentOfGrants() {
        for (String members : List.of("\"Privileged\":true", "\"Runtime\":\"nvidia\"", "\"Binds\":[\"/dev:/dev\"]")) {
            assertThat(refusal(create(withHostConfig(members), grants("nvidia.com/gpu=all", "nvidia.com/gpu=0"))).status()).isEqualTo(403);
        }
    }

    @Test
    void machineNameIsFilledIntoTheListingHint() {
        assertThat(refused("\"Binds\":[\"/dev/video0:/dev/video0\"]").message()).contains("rdc machine gpu list m1");
    }
}
