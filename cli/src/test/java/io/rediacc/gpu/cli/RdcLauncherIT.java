package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.support.Golden;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.Recordings;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * rdc as it ships: the {@code rdc} launcher script running the packaged {@code target/rdc.jar}
 * (its manifest's class path, its class-data sharing archive, {@code System.exit} with the exit
 * code) as a process, against stand-in services over real HTTP. The other tests run the same
 * command tree in-process, which is much faster.
 */
class RdcLauncherIT {

    static final Path LAUNCHER = Path.of("rdc").toAbsolutePath();
    static final Path JAR = Path.of("target", "rdc.jar").toAbsolutePath();

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
    void helpIsAllThatIsPrintedNoFrameworkNoise() {
        LaunchResult result = launch("--help");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).startsWith("Usage: rdc ").contains("Examples:");
        assertThat(result.getErrorOutput()).isEmpty();
    }

    @Test
    void machineGpuListPrintsTheTable() {
        LaunchResult result = new Rdc(RdcLauncherIT::launch, inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-gpu-list-gpu-host-1.txt");
        // the recorded machine holds a grant of a name it no longer defines: only that is warned about
        assertThat(result.getErrorOutput()).startsWith("warning: nvidia.com/gpu=2 is orphaned: ").doesNotContain("\n");
    }

    @Test
    void machineGpuListJsonIsTheInventoryAsRecorded() {
        LaunchResult result = new Rdc(RdcLauncherIT::launch, inventory, grants).run("machine", "gpu", "list", "wsl-gpu", "-o", "json");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).isEqualTo(Recordings.read("inventory-service", "inventory-wsl-gpu.json"));
    }

    @Test
    void repeatedDevicesExitWithTheMostSevereOutcome() {
        LaunchResult result = new Rdc(RdcLauncherIT::launch, inventory, grants).run("repo", "gpu", "grant", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=1", "--device", "nvidia.com/gpu=0");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.CONFLICT);
        assertThat(result.getOutputStream()).singleElement().asString().startsWith("granted nvidia.com/gpu=1 to train-a@gpu-host-1");
        assertThat(result.getErrorStream()).singleElement().asString().startsWith("nvidia.com/gpu=0: exclusive-conflict: ");
    }

    @Test
    void badInputIsOneLineAndExit2() {
        LaunchResult result = new Rdc(RdcLauncherIT::launch, inventory, grants).run("repo", "gpu", "grant", "train-a", "--device", "gpu0");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).hasSize(1);
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void anUnreachableServiceIsOneLineAndExit1() {
        String down = Rdc.nothingListening();
        LaunchResult result = launch("--config", "/dev/null", "--grant-server", down, "repo", "gpu", "list", "train-a");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(result.getErrorStream()).singleElement().asString().startsWith("cannot reach grant-service at " + down + ": ");
    }

    @Test
    void versionIsTheBuildsAndTheArchiveIsUsedSilently() {
        assertThat(JAR.resolveSibling("rdc.jsa")).as("the build dumps the class-data sharing archive").isRegularFile();
        LaunchResult result = launch("--version");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).matches("rdc \\d+\\.\\d+\\.\\d+.*");
        assertThat(result.getErrorOutput()).isEmpty();
    }

    /** Runs the launcher with these arguments; the developer's own config and RDC_* cannot leak in. */
    static LaunchResult launch(String... args) {
        List<String> command = new ArrayList<>(List.of("sh", LAUNCHER.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(name -> name.startsWith("RDC_"));
        builder.environment().put("RDC_JAR", JAR.toString());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            String out = read(process.getInputStream());
            int exit = process.waitFor();
            return new Rdc.Captured(exit, out.lines().toList(), err.join().lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(java.io.InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
