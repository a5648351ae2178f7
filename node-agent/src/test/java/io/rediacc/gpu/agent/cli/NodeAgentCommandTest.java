package io.rediacc.gpu.agent.cli;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import io.rediacc.gpu.standin.machine.FixtureCommand;
import io.rediacc.gpu.standin.machine.FixtureRoot;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line as an operator (or the fleet script) uses it: {@code node-agent setup|fixture ...}. */
@QuarkusMainTest
@TestProfile(NodeAgentCommandTest.StandInsOnPath.class)
class NodeAgentCommandTest {

    static final Path DIR = Path.of("target", "cli-fixture").toAbsolutePath();

    /** The application finds its executables in the fixture's stand-in directory. */
    public static class StandInsOnPath implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("agent.path", DIR.resolve("machine/bin").toString());
        }
    }

    @BeforeEach
    void clean() throws IOException {
        if (Files.exists(DIR)) {
            try (Stream<Path> paths = Files.walk(DIR)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(DIR);
    }

    private static FixtureRoot.Builder machine() {
        return FixtureRoot.builder(DIR.resolve("machine"));
    }

    @Test
    void setupWritesTheInventoryAndPrintsWhatTheMachineHas(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machine().hostname("cli-1").nvidia(1).build();

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString());

        assertThat(r.exitCode()).as(r.getErrorOutput()).isZero();
        assertThat(r.getOutput()).contains("machine cli-1 (local): 1 GPU(s)", "NVIDIA Container Toolkit: installed",
                "nvidia.com/gpu=all", "rediacc.io/dri=renderD128", "wrote /etc/rediacc/gpu/inventory.json");
        MachineInventory inv = EventJson.fromBytes(Files.readAllBytes(f.path(HostRoot.INVENTORY)), MachineInventory.class);
        assertThat(inv.machine()).isEqualTo("cli-1");
        assertThat(f.calls("apt-get")).containsExactly("install -y nvidia-container-toolkit");
    }

    @Test
    void theMachineFlagNamesTheMachineAndTheToolkitFlagIsObeyed(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machine().nvidia(1).build();

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString(), "--machine", "rack4-node2",
                "--install-nvidia-toolkit=false");

        assertThat(r.exitCode()).as(r.getErrorOutput()).isZero();
        assertThat(r.getOutput()).contains("machine rack4-node2 (local)", "NVIDIA Container Toolkit: disabled");
        assertThat(f.calls("apt-get")).isEmpty();
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
    }

    @Test
    void anUnknownToolkitValueIsRefusedWithTheValuesThatExist(QuarkusMainLauncher launcher) {
        FixtureRoot f = machine().build();

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString(), "--install-nvidia-toolkit", "yes");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.getErrorOutput()).contains("--install-nvidia-toolkit must be auto, true or false, not \"yes\"");
        assertThat(f.path(HostRoot.INVENTORY)).doesNotExist();
    }

    @Test
    void aRootThatIsNotADirectoryIsRefusedWithHowToFixIt(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("setup", "--root", DIR.resolve("nowhere").toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.getErrorOutput()).contains("is not a directory", "--root");
    }

    @Test
    void everyCommandTakesTheSameMachineOptionsAndRefusesTheSameWay(QuarkusMainLauncher launcher) {
        for (String command : new String[]{"setup", "prepare", "run"}) {
            LaunchResult r = launcher.launch(command, "--root", DIR.resolve("nowhere").toString());

            assertThat(r.exitCode()).as(command).isEqualTo(2);
            assertThat(r.getErrorOutput()).as(command).contains("node-agent " + command + ": ", "is not a directory", "--root");
        }
        FixtureRoot f = machine().build();
        for (String command : new String[]{"setup", "prepare"}) {
            LaunchResult r = launcher.launch(command, "--root", f.root().toString(), "--install-nvidia-toolkit", "maybe");

            assertThat(r.exitCode()).as(command).isEqualTo(2);
            assertThat(r.getErrorOutput()).as(command).contains("node-agent " + command + ": ");
        }
    }

    @Test
    void anInvalidMachineNameIsRefusedBeforeAnythingIsWritten(QuarkusMainLauncher launcher) {
        FixtureRoot f = machine().build();

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString(), "--machine", "bad/name");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.getErrorOutput()).contains("machine name \"bad/name\" is invalid", "--machine");
        assertThat(f.path(HostRoot.INVENTORY)).doesNotExist();
    }

    @Test
    void aFailedToolkitInstallExitsWithOneAfterWritingTheInventory(QuarkusMainLauncher launcher) {
        FixtureRoot f = machine().nvidia(1).build();
        f.installFails(true);

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.getOutput()).contains("NVIDIA Container Toolkit: failed", "add NVIDIA's package repository");
        assertThat(f.path(HostRoot.INVENTORY)).exists();
    }

    @Test
    void aMachineTheStandInCommandBuildsIsOneSetupUnderstands(QuarkusMainLauncher launcher) {
        Path dir = DIR.resolve("machine");
        int built = new picocli.CommandLine(new FixtureCommand())
                .execute("--nvidia", "2", "--amd", "1", "--hostname", "sim-1", dir.toString());
        assertThat(built).isZero();

        LaunchResult r = launcher.launch("setup", "--root", dir.resolve("root").toString());

        assertThat(r.exitCode()).as(r.getErrorOutput()).isZero();
        assertThat(r.getOutput()).contains("machine sim-1 (local): 3 GPU(s)", "nvidia.com/gpu=1", "rediacc.io/amd=gpu0",
                "rediacc.io/dri=renderD130");
    }

    @Test
    void theAgentHasNoFixtureCommand(QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("fixture", DIR.resolve("none").toString());

        assertThat(r.exitCode()).as("the simulated machine lives in standin-machine, not in the product").isNotZero();
        assertThat(DIR.resolve("none")).doesNotExist();
    }

    @Test
    void aFileInTheWayOfEtcCdiIsNamedInsteadOfAStackTrace(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machine().build();
        Files.createDirectories(f.path("/etc"));
        Files.writeString(f.path(HostRoot.CDI_DIR), "not a directory");

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString());

        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.getErrorOutput()).contains("/etc/cdi is in the way", "move that file away")
                .doesNotContain("Exception", f.root().toString());
    }
}
