package io.rediacc.gpu.inventory.dashboard;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FixCommandTest {

    @Test
    void aMissingGrantsFixIsTheGrantCommandWithoutTheGatesNote() {
        assertThat(FixCommand.of("device nvidia.com/gpu=0 is not granted to repo gpu-a on machine m1; an operator can grant it"
                + " with: rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=0 (this container was created with that device)"))
                .isEqualTo("rdc repo gpu grant gpu-a@m1 --device nvidia.com/gpu=0");
    }

    @Test
    void anOrphanedGrantsFixIsSetupOrRevoke() {
        assertThat(FixCommand.of("device nvidia.com/gpu=0 is granted to repo gpu-a, but machine m1's CDI specs no longer define it"
                + " (a setup removed it, so the grant is orphaned); once the device is back, rerun setup to define it again:"
                + " rdc machine setup m1; or free the grant: rdc repo gpu revoke gpu-a@m1 --device nvidia.com/gpu=0"))
                .isEqualTo("rdc machine setup m1; or free the grant: rdc repo gpu revoke gpu-a@m1 --device nvidia.com/gpu=0");
    }

    @Test
    void aRefusedSpellingsFixIsWhatToWriteInstead() {
        assertThat(FixCommand.of("--gpus all is refused: GPUs are attached only as granted CDI devices; write --device"
                + " nvidia.com/gpu=all instead (compose: devices: [nvidia.com/gpu=all])"))
                .isEqualTo("write --device nvidia.com/gpu=all instead (compose: devices: [nvidia.com/gpu=all])");
    }

    /** The refusals whose Fix column was "-" although the message names the fix (issue 33). */
    @Test
    void everyRefusalThatSaysWhatToDoHasThatAsItsFix() {
        assertThat(FixCommand.of("privileged mode is refused: it gives the container every host device; remove --privileged"
                + " (compose: privileged: true) and attach granted devices with --device <granted name>"))
                .isEqualTo("remove --privileged (compose: privileged: true) and attach granted devices with --device <granted name>");
        assertThat(FixCommand.of("runtime \"nvidia\" is refused: only runc runs containers here, and GPUs are attached as granted"
                + " CDI devices; remove --runtime nvidia and write --device nvidia.com/gpu=all instead"))
                .isEqualTo("remove --runtime nvidia and write --device nvidia.com/gpu=all instead");
        assertThat(FixCommand.of("device cgroup rule \"c 195:* rwm\" is refused: it opens host devices by major/minor number;"
                + " request the device by its granted CDI name instead (--device <granted name>)"))
                .isEqualTo("request the device by its granted CDI name instead (--device <granted name>)");
        assertThat(FixCommand.of("docker exec --privileged is refused: it gives the process every host device; run exec"
                + " without --privileged")).isEqualTo("run exec without --privileged");
        assertThat(FixCommand.of("capability CAP_SYS_ADMIN (HostConfig.CapAdd) is refused: it can mount host file systems;"
                + " remove --cap-add SYS_ADMIN (compose: cap_add)")).isEqualTo("remove --cap-add SYS_ADMIN (compose: cap_add)");
    }

    @Test
    void aMessageWithoutAFixHasNone() {
        assertThat(FixCommand.of("privileged mode is refused")).isNull();
        assertThat(FixCommand.of(null)).isNull();
    }
}
