package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import io.rediacc.gpu.cli.support.StandInService.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RevokeCommandTest {

    static final String GRANTS = "grant-service";
    static final String GPU_0 = "/api/v1/repos/train-a@gpu-host-1/grants/nvidia.com%2Fgpu=0";
    static final String GPU_1 = "/api/v1/repos/train-a@gpu-host-1/grants/nvidia.com%2Fgpu=1";
    static final String GPU_ALL = "/api/v1/repos/train-a@gpu-host-1/grants/nvidia.com%2Fgpu=all";

    StandInService grants;

    @BeforeEach
    void startService() {
        grants = StandInService.start()
                .on("DELETE", GPU_0, Answer.recorded(200, GRANTS, "revoke-enforced.json"))
                .on("DELETE", GPU_1, Answer.recorded(404, GRANTS, "error-not-granted.json"))
                .on("DELETE", GPU_ALL, Answer.recorded(202, GRANTS, "revoke-not-enforced.json"));
    }

    @AfterEach
    void stopService() {
        grants.close();
    }

    @Test
    void anEnforcedRevocationExits0AndTheDeviceTravelsUrlEncoded() {
        LaunchResult result = new Rdc(null, grants)
                .run("repo", "gpu", "revoke", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=0", "--wait", "2s");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).isEqualTo(
                "revoked nvidia.com/gpu=0 from train-a@gpu-host-1: "
                        + "enforced: every live gate of gpu-host-1 (gate-1) applies version 16 or newer");
        assertThat(grants.requests()).extracting(Request::line).containsExactly("DELETE " + GPU_0 + "?wait=2000ms");
    }

    @Test
    void aRevocationNotYetEnforcedExits5() {
        LaunchResult result = new Rdc(null, grants)
                .run("repo", "gpu", "revoke", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=all");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_ENFORCED);
        assertThat(result.getOutput()).isEqualTo("revoked nvidia.com/gpu=all from train-a@gpu-host-1, not yet enforced: "
                + "recorded at version 17 but not enforced: machine gpu-host-1 has no live gate (none has reported on "
                + "gpu.gate-status.v1 within 3 heartbeats); the change takes effect once the machine's docker-gate runs and loads it");
    }

    @Test
    void revokingWhatWasNeverGrantedExits3() {
        LaunchResult result = new Rdc(null, grants)
                .run("repo", "gpu", "revoke", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(result.getErrorStream()).containsExactly("nvidia.com/gpu=1: not-granted: repo train-a on gpu-host-1 has "
                + "no grant of nvidia.com/gpu=1 (its grants: nvidia.com/gpu=0, nvidia.com/gpu=all) (hint: revoke one of the "
                + "names it holds; rdc repo gpu list train-a@gpu-host-1 lists them)");
    }

    @Test
    void severalDevicesAreRevokedOneByOneAndTheMostSevereOutcomeWins() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "revoke", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=0", "--device", "nvidia.com/gpu=all", "--device", "nvidia.com/gpu=1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(grants.requests()).extracting(Request::rawPath).containsExactly(GPU_0, GPU_ALL, GPU_1);
        assertThat(result.getOutputStream()).hasSize(2);
        assertThat(result.getErrorStream()).hasSize(1);
    }

    @Test
    void anInvalidDeviceNameIsRefusedBeforeAnythingIsRevoked() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "revoke", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=0", "--device", "nvidia.com/gpu=0!");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly("invalid --device nvidia.com/gpu=0!: device \"0!\" contains "
                + "invalid character '!' at position 2; allowed are letters, digits, '_', '.', '-', ':'");
        assertThat(grants.requests()).isEmpty();
    }
}
