package io.rediacc.gpu.agent.cli;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.GrantSnapshotCopy;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SignedRecord;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.standin.machine.FixtureRoot;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The machine-side doors to setup — {@code renet setup} (node-agent prepare on the machine, no rdc to name the
 * grants) and the boot-time unit ({@code node-agent setup}) — guard the grants by the machine's own verified copy
 * of them (docker-gate's state file), fail closed when that copy does not verify, and the boot repeats the
 * operator's last {@code --install-nvidia-toolkit}.
 */
@QuarkusMainTest
@TestProfile(MachineSideSetupGuardTest.StandInsOnPath.class)
class MachineSideSetupGuardTest {

    static final Path DIR = Path.of("target", "guard-fixture").toAbsolutePath();
    static final String MACHINE = "m-guard";
    static final KeyPair GRANT_SERVICE = SigningKeys.generate();

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

    /** A machine set up with the NVIDIA spec, grant-service's key where rdc machine setup writes it, and no copy yet. */
    private FixtureRoot machineWithNvidiaSpec(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = FixtureRoot.builder(DIR.resolve("machine")).nvidia(1).build();
        LaunchResult first = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE);
        assertThat(first.exitCode()).as(first.getErrorOutput()).isZero();
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).exists();
        Path key = f.path("/etc/rediacc/gate/grant-service-key.pub");
        Files.createDirectories(key.getParent());
        Files.writeString(key, SigningKeys.publicPem(GRANT_SERVICE.getPublic()));
        return f;
    }

    /** The gate's copy of the machine's grants, as docker-gate keeps it after applying grant-service's snapshot. */
    private static Path gateCopy(FixtureRoot f, KeyPair signer, String... devices) throws IOException {
        Instant now = Instant.now();
        List<Grant> grants = Stream.of(devices).map(d -> new Grant("3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", "gpu-a", d,
                d.endsWith("=0"), "op", now)).toList();
        GrantSnapshot snapshot = new GrantSnapshot(MACHINE, 4, now, grants);
        byte[] value = EventJson.toBytes(snapshot);
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC, "/test/grant-service",
                MACHINE, "id-1", now));
        new RecordSigner(signer.getPrivate(), signer.getPublic()).sign(Topics.GRANTS, MACHINE, headers, value);
        Path file = GrantSnapshotCopy.file(f.path(GrantSnapshotCopy.DEFAULT_STATE_DIR), MACHINE);
        GrantSnapshotCopy.write(file, SignedRecord.of(Topics.GRANTS, MACHINE, headers::get, value));
        return file;
    }

    @Test
    void renetSetupWithoutGuardNamesKeepsTheNamesTheGatesCopyGrants(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machineWithNvidiaSpec(launcher);
        gateCopy(f, GRANT_SERVICE, "nvidia.com/gpu=0", "rediacc.io/dri=renderD128");
        byte[] spec = Files.readAllBytes(f.path(HostRoot.NVIDIA_SPEC));

        // what `renet setup --install-nvidia-toolkit false` runs
        LaunchResult r = launcher.launch("prepare", "--root", f.root().toString(), "--machine", MACHINE,
                "--install-nvidia-toolkit", "false");

        assertThat(r.exitCode()).as(r.getOutput() + r.getErrorOutput()).isEqualTo(1);
        assertThat(r.getOutput()).contains("node-agent setup: refused - it would remove CDI device(s) that hold grants: "
                        + "nvidia.com/gpu=0; nothing was changed",
                "gpu-a@m-guard holds nvidia.com/gpu=0 (exclusive): rdc repo gpu revoke gpu-a@m-guard --device nvidia.com/gpu=0",
                "--force", "@would-orphan nvidia.com/gpu=0");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).hasBinaryContent(spec);
        assertThat(f.path(HostRoot.AGENT_ENV)).as("a refused choice is not saved for the boot").doesNotExist();
    }

    @Test
    void theBootTimeSetupRefusesWithTheGrantsAndTheFixAndKeepsTheSpecs(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machineWithNvidiaSpec(launcher);
        gateCopy(f, GRANT_SERVICE, "nvidia.com/gpu=0");
        byte[] spec = Files.readAllBytes(f.path(HostRoot.NVIDIA_SPEC));
        byte[] inventory = Files.readAllBytes(f.path(HostRoot.INVENTORY));

        // node-agent-setup.service's ExecStart, with INSTALL_NVIDIA_TOOLKIT=false
        LaunchResult boot = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE,
                "--install-nvidia-toolkit", "false");

        assertThat(boot.exitCode()).as(boot.getOutput() + boot.getErrorOutput()).isEqualTo(SetupCommand.REFUSED);
        assertThat(boot.getErrorOutput()).contains("node-agent setup: refused - it would remove CDI device(s) that hold "
                + "grants: nvidia.com/gpu=0", "rdc repo gpu revoke gpu-a@m-guard --device nvidia.com/gpu=0", "--force");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).hasBinaryContent(spec);
        assertThat(f.path(HostRoot.INVENTORY)).hasBinaryContent(inventory);

        LaunchResult forced = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE,
                "--install-nvidia-toolkit", "false", "--force");
        assertThat(forced.exitCode()).as(forced.getErrorOutput()).isZero();
        assertThat(forced.getErrorOutput()).contains("orphaned the grants of nvidia.com/gpu=0 (--force)");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
    }

    @Test
    void aCopyThatDoesNotVerifyGuardsEveryNameTheMachineDefines(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machineWithNvidiaSpec(launcher);
        gateCopy(f, SigningKeys.generate(), "rediacc.io/dri=renderD128"); // not grant-service's signature
        byte[] spec = Files.readAllBytes(f.path(HostRoot.NVIDIA_SPEC));

        LaunchResult boot = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE,
                "--install-nvidia-toolkit", "false");

        assertThat(boot.exitCode()).as(boot.getOutput() + boot.getErrorOutput()).isEqualTo(SetupCommand.REFUSED);
        assertThat(boot.getErrorOutput()).contains("that may hold grants: nvidia.com/gpu=0", "nvidia.com/gpu=all",
                "/var/lib/rediacc/gate/grants-m-guard.json cannot be trusted", "--guard-grant", "--force");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).hasBinaryContent(spec);

        // a setup that removes nothing is not held up by it
        LaunchResult again = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE);
        assertThat(again.exitCode()).as(again.getErrorOutput()).isZero();
    }

    @Test
    void withoutACopyTheMachineIsSetUpAsAskedUnlessTheCallerCouldNotReadTheGrants(QuarkusMainLauncher launcher)
            throws IOException {
        FixtureRoot f = machineWithNvidiaSpec(launcher);

        // rdc machine setup when grant-service did not answer
        LaunchResult unknown = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE,
                "--install-nvidia-toolkit", "false", "--require-grant-copy");
        assertThat(unknown.exitCode()).as(unknown.getErrorOutput()).isEqualTo(SetupCommand.REFUSED);
        assertThat(unknown.getErrorOutput()).contains("could not be read from grant-service, and this machine holds no copy");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).exists();

        LaunchResult r = launcher.launch("setup", "--root", f.root().toString(), "--machine", MACHINE,
                "--install-nvidia-toolkit", "false");
        assertThat(r.exitCode()).as(r.getErrorOutput()).isZero();
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
    }

    @Test
    void prepareSavesTheOperatorsToolkitChoiceWhereTheBootTimeUnitReadsIt(QuarkusMainLauncher launcher) throws IOException {
        FixtureRoot f = machineWithNvidiaSpec(launcher);
        Path env = f.path(HostRoot.AGENT_ENV);
        Files.createDirectories(env.getParent());
        Files.writeString(env, "# the operator's\n#INSTALL_NVIDIA_TOOLKIT=auto\nAGENT_MACHINE=m-guard\n");

        LaunchResult r = launcher.launch("prepare", "--root", f.root().toString(), "--install-nvidia-toolkit", "false");

        assertThat(r.getOutput()).as(r.getErrorOutput()).contains("toolkit choice: changed - INSTALL_NVIDIA_TOOLKIT=false in "
                + "/etc/rediacc/gpu/node-agent.env");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
        assertThat(env).hasContent("# the operator's\n#INSTALL_NVIDIA_TOOLKIT=auto\nAGENT_MACHINE=m-guard\n"
                + "# the last --install-nvidia-toolkit of rdc machine setup / renet setup (node-agent prepare saves it)\n"
                + "INSTALL_NVIDIA_TOOLKIT=false\n");

        // renet setup without the option repeats the saved choice, as the boot-time unit does with ${INSTALL_NVIDIA_TOOLKIT}
        LaunchResult again = launcher.launch("prepare", "--root", f.root().toString());
        assertThat(again.getOutput()).contains("toolkit choice: unchanged - INSTALL_NVIDIA_TOOLKIT=false", "node-agent setup: unchanged");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();

        LaunchResult auto = launcher.launch("prepare", "--root", f.root().toString(), "--install-nvidia-toolkit", "auto");
        assertThat(auto.getOutput()).contains("toolkit choice: changed - INSTALL_NVIDIA_TOOLKIT=auto");
        assertThat(Files.readString(env)).endsWith("INSTALL_NVIDIA_TOOLKIT=auto\n").contains("AGENT_MACHINE=m-guard\n");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).exists();
    }
}
