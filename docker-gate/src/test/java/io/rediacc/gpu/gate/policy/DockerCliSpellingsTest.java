package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.MAX_BODY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grantsNotLoaded;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.send;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the real docker CLI sends for each spelling, and what the gate answers. */
class DockerCliSpellingsTest {

    @Test
    void grantedCdiDeviceIsAdmitted() {
        assertThat(create(DockerCliBodies.RUN_DEVICE_CDI_GPU0, grants("nvidia.com/gpu=0"))).isEqualTo(new Verdict.Allow());
    }

    @Test
    void ungrantedCdiDeviceIsRefusedNamingTheMissingGrantAndTheFix() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_CDI_GPU0, grants()));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("cdi-not-granted");
        assertThat(r.device()).isEqualTo("nvidia.com/gpu=0");
        assertThat(r.message()).isEqualTo("device nvidia.com/gpu=0 is not granted to repo gpu-a on machine m1; an operator can grant it with: "
                + "rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=0");
    }

    @Test
    void grantOfAllDoesNotAdmitCardZero() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_CDI_GPU0, grants("nvidia.com/gpu=all")));
        assertThat(r.rule()).isEqualTo("cdi-not-granted");
    }

    @Test
    void grantOfCardZeroDoesNotAdmitAll() {
        Refusal r = refusal(create(DockerCliBodies.RUN_GROUP_ADD_WITH_CDI_ALL, grants("nvidia.com/gpu=0")));
        assertThat(r.device()).isEqualTo("nvidia.com/gpu=all");
    }

    @Test
    void grantOfAnotherRepoDoesNotAdmit() {
        GrantLookup otherRepoHoldsIt = new GrantLookup() {
            @Override
            public boolean loaded() {
                return true;
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                return repoGuid.equals("guid-of-the-parent-repo");
            }
        };
        assertThat(refusal(create(DockerCliBodies.RUN_DEVICE_CDI_GPU0, otherRepoHoldsIt)).rule()).isEqualTo("cdi-not-granted");
    }

    @Test
    void deviceRequestsWaitUntilGrantsAreLoaded() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_CDI_GPU0, grantsNotLoaded()));
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.rule()).isEqualTo("grants-not-loaded");
        assertThat(r.message()).startsWith("grants not loaded yet, retry");
    }

    @Test
    void requestsWithoutDevicesPassWhileGrantsAreNotLoaded() {
        String plain = DockerCliBodies.RUN_DEVICE_CDI_GPU0.replace("[{\"Driver\":\"cdi\",\"Count\":0,\"DeviceIDs\":[\"nvidia.com/gpu=0\"],\"Capabilities\":null,\"Options\":null}]", "null");
        assertThat(plain).doesNotContain("nvidia.com");
        assertThat(create(plain, grantsNotLoaded())).isEqualTo(new Verdict.Allow());
    }

    @Test
    void refusedSpellingBeatsGrantsNotLoaded() {
        Refusal r = refusal(create(DockerCliBodies.RUN_GPUS_ALL, grantsNotLoaded()));
        assertThat(r.status()).isEqualTo(403);
    }

    @Test
    void groupAddVideoAndRenderIsAccepted() {
        assertThat(create(DockerCliBodies.RUN_GROUP_ADD_WITH_CDI_ALL, grants("nvidia.com/gpu=all"))).isEqualTo(new Verdict.Allow());
    }

    @Test
    void gpusAllIsRefusedAndSaysToWriteDeviceNvidiaGpuAll() {
        Refusal r = refusal(create(DockerCliBodies.RUN_GPUS_ALL, grants("nvidia.com/gpu=all")));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("gpus-request");
        assertThat(r.message()).startsWith("--gpus all is refused").contains("--device nvidia.com/gpu=all")
                .contains("devices: [nvidia.com/gpu=all]");
    }

    @Test
    void gpusDeviceZeroIsRefusedAndSaysToWriteDeviceNvidiaGpuZero() {
        Refusal r = refusal(create(DockerCliBodies.RUN_GPUS_DEVICE_0, grants("nvidia.com/gpu=0")));
        assertThat(r.rule()).isEqualTo("gpus-request");
        assertThat(r.message()).startsWith("--gpus device=0 is refused").contains("write --device nvidia.com/gpu=0 ");
    }

    @Test
    void gpusCountIsRefusedAndSuggestsOneDevicePerGpu() {
        Refusal r = refusal(create(DockerCliBodies.RUN_GPUS_2));
        assertThat(r.message()).startsWith("--gpus 2 is refused").contains("--device nvidia.com/gpu=0 --device nvidia.com/gpu=1");
    }

    @Test
    void runtimeNvidiaIsRefusedAndSaysToWriteDevicesNvidiaGpuAll() {
        Refusal r = refusal(create(DockerCliBodies.RUN_RUNTIME_NVIDIA));
        assertThat(r.rule()).isEqualTo("runtime");
        assertThat(r.message()).contains("--device nvidia.com/gpu=all").contains("devices: [nvidia.com/gpu=all]")
                .contains("remove runtime: nvidia");
    }

    @Test
    void rawRenderNodeIsRefusedAndSaysToWriteRediaccDri() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_RENDER_NODE));
        assertThat(r.rule()).isEqualTo("raw-device");
        assertThat(r.device()).isEqualTo("/dev/dri/renderD128");
        assertThat(r.message()).contains("write --device rediacc.io/dri=renderD128 instead");
    }

    @Test
    void rawKfdIsRefusedAndSaysToWriteRediaccAmdAll() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_KFD_AND_DRI));
        assertThat(r.device()).isEqualTo("/dev/kfd");
        assertThat(r.message()).contains("--device rediacc.io/amd=all");
    }

    @Test
    void rawDeviceNextToAGrantedCdiDeviceIsStillRefused() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_CDI_AND_RAW_NVIDIA0, grants("nvidia.com/gpu=0")));
        assertThat(r.rule()).isEqualTo("raw-device");
        assertThat(r.message()).contains("--device nvidia.com/gpu=0");
    }

    @Test
    void privilegedIsRefusedAndSaysToRemoveIt() {
        Refusal r = refusal(create(DockerCliBodies.RUN_PRIVILEGED));
        assertThat(r.rule()).isEqualTo("privileged");
        assertThat(r.message()).contains("remove --privileged");
    }

    @Test
    void bindOfDevIsRefused() {
        Refusal r = refusal(create(DockerCliBodies.RUN_BIND_DEV));
        assertThat(r.rule()).isEqualTo("host-path");
        assertThat(r.device()).isEqualTo("/dev");
    }

    @Test
    void bindMountOfDevDriIsRefusedAndSuggestsTheRenderNodeName() {
        Refusal r = refusal(create(DockerCliBodies.RUN_MOUNT_BIND_DEV_DRI));
        assertThat(r.rule()).isEqualTo("host-path");
        assertThat(r.message()).contains("rediacc.io/dri=renderD128");
    }

    @Test
    void deviceCgroupRuleIsRefused() {
        Refusal r = refusal(create(DockerCliBodies.RUN_DEVICE_CGROUP_RULE));
        assertThat(r.rule()).isEqualTo("device-cgroup-rule");
        assertThat(r.message()).contains("c 195:* rwm");
    }

    @Test
    void systemPathsUnconfinedIsRefused() {
        assertThat(refusal(create(DockerCliBodies.RUN_SYSTEMPATHS_UNCONFINED)).rule()).isEqualTo("system-paths");
    }

    @Test
    void capAddSysAdminIsRefused() {
        Refusal r = refusal(create(DockerCliBodies.RUN_CAP_SYS_ADMIN_PID_IPC_HOST));
        assertThat(r.rule()).isEqualTo("capability");
        assertThat(r.message()).contains("CAP_SYS_ADMIN").contains("remove --cap-add SYS_ADMIN");
    }

    @Test
    void inlineLocalVolumeOnABlockDeviceIsRefused() {
        Refusal r = refusal(create(DockerCliBodies.RUN_MOUNT_VOLUME_DEVICE_SDA1));
        assertThat(r.rule()).isEqualTo("volume-options");
        assertThat(r.device()).isEqualTo("/dev/sda1");
    }

    @Test
    void volumeCreateBindingDevDriIsRefused() {
        Refusal r = refusal(send("/v1.50/volumes/create", DockerCliBodies.VOLUME_CREATE_BIND_DEV_DRI, grants()));
        assertThat(r.rule()).isEqualTo("volume-options");
        assertThat(r.device()).isEqualTo("/dev/dri");
    }

    @Test
    void privilegedExecIsRefused() {
        Refusal r = refusal(send("/v1.50/containers/abc123/exec", DockerCliBodies.EXEC_PRIVILEGED, grants()));
        assertThat(r.rule()).isEqualTo("exec-privileged");
    }

    @Test
    void plainExecIsAdmitted() {
        String plain = DockerCliBodies.EXEC_PRIVILEGED.replace("\"Privileged\":true", "\"Privileged\":false");
        assertThat(send("/v1.50/containers/abc123/exec", plain, grants())).isEqualTo(new Verdict.Allow());
    }

    @Test
    void cliContainerUpdateIsAdmitted() {
        assertThat(send("/v1.50/containers/abc123/update", DockerCliBodies.UPDATE_CPUS, grants())).isEqualTo(new Verdict.Allow());
    }

    @Test
    void cliStartWithContentLengthZeroChecksTheStoredContainer() {
        RequestHead start = PolicyTestKit.head("POST", "/v1.50/containers/abc123/start",
                java.util.Map.of("content-length", java.util.List.of("0")));
        assertThat(POLICY.onHead(start, REPO)).isEqualTo(new HeadVerdict.InspectStoredContainer("abc123", "1.50", "start", ""));
    }

    @Test
    void everyCliBodyFitsTheTestLimit() {
        assertThat(DockerCliBodies.RUN_DEVICE_CDI_GPU0.length()).isLessThan(MAX_BODY);
    }
}
