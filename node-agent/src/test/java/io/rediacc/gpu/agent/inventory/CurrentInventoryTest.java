package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.standin.machine.FixtureRoot;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.events.MachineInventory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** What the long-running mode publishes, assembled from setup's file and the machine as it is now. */
class CurrentInventoryTest {

    @TempDir
    Path tmp;

    @Test
    void beforeAnySetupTheMachineIsStillReportedFromWhatCanBeDetected() {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("fresh-1").nvidia(1).build();
        InventoryAssembler assembler = new InventoryAssembler("t", Clock.systemUTC());

        MachineInventory inv = assembler.current(AgentSettings.forRoot(f.root(), f.searchPath(), null));

        assertThat(inv.machine()).isEqualTo("fresh-1");
        assertThat(inv.gpus()).hasSize(1);
        assertThat(inv.cdiDevices()).isEmpty(); // nothing generated yet: nothing grantable
        assertThat(inv.toolkit().state()).isEqualTo("not-installed");
        assertThat(inv.toolkit().detail()).contains("run node-agent setup");
        assertThat(f.path(HostRoot.INVENTORY)).doesNotExist(); // the long-running mode never writes it
    }

    @Test
    void afterSetupTheRecordIsReusedWithTheSpecsAndTheTimeOfNow() throws Exception {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(2).toolkitInstalled(true).build();
        AgentSettings settings = AgentSettings.forRoot(f.root(), f.searchPath(), "m-7");
        new SetupService(new InventoryAssembler("t", Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)))
                .run(settings, ToolkitPolicy.AUTO);
        int smiCalls = f.calls("nvidia-smi").size();
        Files.delete(f.path(HostRoot.NVIDIA_SPEC)); // e.g. an operator removed it by hand

        Instant now = Instant.parse("2026-01-01T00:05:00Z");
        MachineInventory inv = new InventoryAssembler("t", Clock.fixed(now, ZoneOffset.UTC)).current(settings);

        assertThat(inv.machine()).isEqualTo("m-7");
        assertThat(inv.generatedAt()).isEqualTo(now);
        assertThat(inv.gpus()).hasSize(2);
        assertThat(inv.cdiDevices()).extracting(MachineInventory.CdiDeviceInfo::name)
                .containsExactly("rediacc.io/dri=renderD128", "rediacc.io/dri=renderD129");
        assertThat(f.calls("nvidia-smi")).hasSize(smiCalls); // GPUs come from inventory.json, not a new detection
    }

    @Test
    void thePublishedRecordCarriesSetupsFileByteForByteWithItsDigestAndSetupsTime() throws Exception {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).toolkitInstalled(true).build();
        AgentSettings settings = AgentSettings.forRoot(f.root(), f.searchPath(), "m-8");
        Instant setupAt = Instant.parse("2026-01-01T00:00:00Z");
        new SetupService(new InventoryAssembler("t", Clock.fixed(setupAt, ZoneOffset.UTC))).run(settings, ToolkitPolicy.AUTO);
        byte[] onDisk = Files.readAllBytes(f.path(HostRoot.INVENTORY));

        MachineInventory inv = new InventoryAssembler("t", Clock.fixed(setupAt.plusSeconds(86_400), ZoneOffset.UTC))
                .current(settings);

        assertThat(inv.generatedAt()).as("the heartbeat's time").isEqualTo(setupAt.plusSeconds(86_400));
        MachineInventory.SetupFile file = inv.setupFile();
        assertThat(file.generatedAt()).as("setup's time").isEqualTo(setupAt);
        assertThat(file.content().getBytes(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(onDisk);
        assertThat(file.bytes()).isEqualTo(onDisk.length);
        assertThat(file.sha256()).isEqualTo(java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(onDisk)));
        // the file stays setup's own: no setupFile inside it
        assertThat(new String(onDisk, java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("setupFile");
    }

    @Test
    void aFileOverTheLimitTravelsAsItsDigestAndSizeOnly() {
        byte[] big = new byte[MachineInventory.MAX_SETUP_FILE_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        MachineInventory recorded = new MachineInventory(1, "m", "local", "t", Instant.EPOCH, null, null, null, null, null, null);

        MachineInventory.SetupFile file = InventoryFile.setupFile(big, recorded);

        assertThat(file.content()).isNull();
        assertThat(file.bytes()).isEqualTo(big.length);
        assertThat(file.sha256()).hasSize(64);
    }
}
