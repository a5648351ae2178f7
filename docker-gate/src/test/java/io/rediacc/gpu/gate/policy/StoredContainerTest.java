package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grantsNotLoaded;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Revocation on the next request: a start re-checks the container's stored configuration. */
class StoredContainerTest {

    /** The shape of {@code GET /containers/{id}/json} from Docker 28 (trimmed), HostConfig as the daemon completes it. */
    private static final String INSPECT = """
            {"Id":"3f2a9c0d1e2f","Created":"2025-05-01T10:00:00.000000000Z","Path":"nvidia-smi","Args":[],
             "State":{"Status":"exited","Running":false,"Paused":false,"Restarting":false,"OOMKilled":false,"Dead":false,"Pid":0,"ExitCode":0},
             "Image":"sha256:0123","Name":"/gpu-job","RestartCount":0,"Driver":"overlay2","Platform":"linux",
             "HostConfig":{"Binds":null,"ContainerIDFile":"","LogConfig":{"Type":"json-file","Config":{}},"NetworkMode":"bridge",
              "PortBindings":{},"RestartPolicy":{"Name":"no","MaximumRetryCount":0},"AutoRemove":false,"VolumeDriver":"","VolumesFrom":null,
              "ConsoleSize":[50,200],"CapAdd":null,"CapDrop":null,"CgroupnsMode":"private","Dns":[],"DnsOptions":[],"DnsSearch":[],
              "ExtraHosts":null,"GroupAdd":["video","render"],"IpcMode":"private","Cgroup":"","Links":null,"OomScoreAdj":0,"PidMode":"",
              "Privileged":false,"PublishAllPorts":false,"ReadonlyRootfs":false,"SecurityOpt":null,"UTSMode":"","UsernsMode":"","ShmSize":67108864,
              "Runtime":"runc","Isolation":"","CpuShares":0,"Memory":0,"NanoCpus":0,"CgroupParent":"","BlkioWeight":0,"BlkioWeightDevice":[],
              "Devices":[],"DeviceCgroupRules":null,
              "DeviceRequests":[{"Driver":"cdi","Count":0,"DeviceIDs":["nvidia.com/gpu=0"],"Capabilities":null,"Options":null}],
              "MemoryReservation":0,"MemorySwap":0,"MemorySwappiness":null,"OomKillDisable":null,"PidsLimit":null,"Ulimits":[],
              "MaskedPaths":["/proc/asound","/proc/acpi","/proc/interrupts","/proc/kcore","/proc/keys","/proc/latency_stats","/proc/timer_list",
                "/proc/timer_stats","/proc/sched_debug","/proc/scsi","/sys/firmware","/sys/devices/virtual/powercap"],
              "ReadonlyPaths":["/proc/bus","/proc/fs","/proc/irq","/proc/sys","/proc/sysrq-trigger"]},
             "Mounts":[],
             "Config":{"Hostname":"3f2a9c0d1e2f","Env":["PATH=/usr/bin","NVIDIA_VISIBLE_DEVICES=all"],"Cmd":["nvidia-smi"],"Image":"ubuntu",
               "Labels":{"com.example.Team":"ml","com.example.team":"ml"}}}
            """;

    private static Verdict stored(String inspect, GrantLookup grants) {
        return PolicyTestKit.noVolumesExist(POLICY.onStoredContainer(utf8(inspect), REPO, grants));
    }

    @Test
    void containerWithAStillGrantedDeviceStarts() {
        assertThat(stored(INSPECT, grants("nvidia.com/gpu=0"))).isEqualTo(new Verdict.Allow());
    }

    @Test
    void containerWhoseDeviceWasRevokedDoesNotStart() {
        Refusal r = refusal(stored(INSPECT, grants()));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("cdi-not-granted");
        assertThat(r.device()).isEqualTo("nvidia.com/gpu=0");
        assertThat(r.message()).startsWith("device nvidia.com/gpu=0 is not granted to repo gpu-a on machine m1; an operator can grant it with: "
                + "rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=0");
    }

    @Test
    void containerWithDevicesWaitsForGrantsToLoad() {
        assertThat(refusal(stored(INSPECT, grantsNotLoaded())).status()).isEqualTo(503);
    }

    @Test
    void containerWithoutDevicesStartsBeforeGrantsAreLoaded() {
        String plain = INSPECT.replace("[{\"Driver\":\"cdi\",\"Count\":0,\"DeviceIDs\":[\"nvidia.com/gpu=0\"],\"Capabilities\":null,\"Options\":null}]", "null");
        assertThat(stored(plain, grantsNotLoaded())).isEqualTo(new Verdict.Allow());
    }

    @Test
    void labelsThatDifferOnlyInCaseDoNotBlockAStoredContainer() {
        assertThat(INSPECT).contains("com.example.Team").contains("com.example.team");
        assertThat(stored(INSPECT, grants("nvidia.com/gpu=0"))).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "\"Privileged\":false→\"Privileged\":true",
            "\"Runtime\":\"runc\"→\"Runtime\":\"nvidia\"",
            "\"Devices\":[]→\"Devices\":[{\"PathOnHost\":\"/dev/nvidia1\",\"PathInContainer\":\"/dev/nvidia1\",\"CgroupPermissions\":\"rwm\"}]",
            "\"DeviceCgroupRules\":null→\"DeviceCgroupRules\":[\"c 195:* rwm\"]",
            "\"Binds\":null→\"Binds\":[\"/dev/dri:/dev/dri\"]",
            "\"Driver\":\"cdi\"→\"Driver\":\"nvidia\"",
            "\"PidMode\":\"\"→\"PidMode\":\"host\"",
            "\"CapAdd\":null→\"CapAdd\":[\"CAP_SYS_ADMIN\"]",
            "\"Mounts\":[]→\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/dev/dri\",\"Destination\":\"/dev/dri\",\"Mode\":\"\",\"RW\":true,\"Propagation\":\"rprivate\"}]",
            "\"ReadonlyPaths\":[\"/proc/bus\",\"/proc/fs\",\"/proc/irq\",\"/proc/sys\",\"/proc/sysrq-trigger\"]→\"ReadonlyPaths\":[]"})
    void containerCreatedWithARefusedHardwarePathDoesNotStart(String edit) {
        String[] fromTo = edit.split("→");
        assertThat(INSPECT).contains(fromTo[0]);
        Refusal r = refusal(stored(INSPECT.replace(fromTo[0], fromTo[1]), grants("nvidia.com/gpu=0")));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.message()).startsWith("this container was created with a configuration the gate refuses: ");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"", "not json", "[]", "{\"Id\":\"x\"}", "{\"HostConfig\":null}", "{\"HostConfig\":{\"Privileged\":\"yes\"}}",
            "{\"HostConfig\":{\"Privileged\":false,\"Privileged\":false}}", "{\"HostConfig\":{\"Privileged\":false,\"privileged\":true}}"})
    void unreadableStoredConfigurationFailsClosed(String inspect) {
        Refusal r = refusal(stored(inspect, grants("nvidia.com/gpu=0")));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("stored-config-unreadable");
        assertThat(r.message()).startsWith("the stored configuration of this container could not be read");
    }

    @Test
    void volumeMountPointsAreNotHostPathsOfConcern() {
        String withVolume = INSPECT.replace("\"Mounts\":[]", "\"Mounts\":[{\"Type\":\"volume\",\"Name\":\"data\","
                + "\"Source\":\"/var/lib/docker/volumes/data/_data\",\"Destination\":\"/data\",\"Driver\":\"local\",\"Mode\":\"z\",\"RW\":true}]");
        assertThat(stored(withVolume, grants("nvidia.com/gpu=0"))).isEqualTo(new Verdict.Allow());
    }

    @Test
    void nullStoredBodyFailsClosed() {
        assertThat(refusal(POLICY.onStoredContainer(null, REPO, grants())).rule()).isEqualTo("stored-config-unreadable");
    }
}
