package io.rediacc.gpu.cli;

import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import io.rediacc.gpu.cli.support.Golden;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.Recordings;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * rdc as it ships: the Quarkus application (picocli wired by quarkus-picocli, rdc's error
 * handling installed by its producer) against stand-in services over real HTTP. The other
 * tests run the same command classes in-process, which is much faster.
 */
@QuarkusMainTest
class RdcMainTest {

    StandInService inventory;
    StandInService grants;

    @BeforeEach
    void startServices() {
        inventory = StandInService.start()
                .on("GET", "/api/v1/machines/gpu-host-1", Answer.recorded(200, "inventory-service", "machine-gpu-host-1.json"))
                .on("GET", "/api/v1/machines/wsl-gpu/inventory", Answer.recorded(200, "inventory-service", "inventory-wsl-gpu.json"));
        grants = StandInService.start()
                .on("GET", "/api/v1/machines/gpu-host-1/grants", Answer.recorded(200, "grant-service", "machine-grants-gpu-host-1.json"))
                .on("POST", "/api/v1/repos/train-a@gpu-host-1/grants", request -> request.body().contains("gpu=0")
                        ? Answer.recorded(409, "grant-service", "error-exclusive-conflict.json")
                        : Answer.recorded(201, "grant-service", "grant-created.json"));
    }

    @AfterEach
    void stopServices() {
        inventory.close();
        grants.close();
    }

    @Test
    void helpIsAllThatIsPrintedNoFrameworkNoise(QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch("--help");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).startsWith("Usage: rdc ").contains("Examples:");
        assertThat(result.getErrorOutput()).isEmpty();
    }

    @Test
    void machineGpuListPrintsTheTable(QuarkusMainLauncher launcher) {
        LaunchResult result = new Rdc(launcher, inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-gpu-list-gpu-host-1.txt");
        assertThat(result.getErrorOutput()).isEmpty();
    }

    @Test
    void machineGpuListJsonIsTheInventoryAsRecorded(QuarkusMainLauncher launcher) {
        LaunchResult result = new Rdc(launcher, inventory, grants).run("machine", "gpu", "list", "wsl-gpu", "-o", "json");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).isEqualTo(Recordings.read("inventory-service", "inventory-wsl-gpu.json"));
    }

    @Test
    void repeatedDevicesExitWithTheMostSevereOutcome(QuarkusMainLauncher launcher) {
        LaunchResult result = new Rdc(launcher, inventory, grants).run("repo", "gpu", "grant", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=1", "--device", "nvidia.com/gpu=0");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.CONFLICT);
        assertThat(result.getOutputStream()).singleElement().asString().startsWith("granted nvidia.com/gpu=1 to train-a@gpu-host-1");
        assertThat(result.getErrorStream()).singleElement().asString().startsWith("nvidia.com/gpu=0: exclusive-conflict: ");
    }

    @Test
    void badInputIsOneLineAndExit2(QuarkusMainLauncher launcher) {
        LaunchResult result = new Rdc(launcher, inventory, grants).run("repo", "gpu", "grant", "train-a", "--device", "gpu0");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).hasSize(1);
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void anUnreachableServiceIsOneLineAndExit1(QuarkusMainLauncher launcher) {
        String down = Rdc.nothingListening();
        LaunchResult result = launcher.launch("--config", "/dev/null", "--grant-server", down, "repo", "gpu", "list", "train-a");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(result.getErrorStream()).singleElement().asString().startsWith("cannot reach grant-service at " + down + ": ");
    }
}
