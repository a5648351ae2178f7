package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.Captured;
import io.rediacc.gpu.agent.host.HostRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The captured KFD topology files of real MI210 and MI308X hosts. */
class KfdTopologyTest {

    @TempDir
    Path root;

    private void node(int n, String fixture) throws IOException {
        Path dir = new HostRoot(root).path(HostRoot.KFD_TOPOLOGY_NODES + "/" + n);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("properties"), Captured.read(fixture));
    }

    @Test
    void cpuNodesAreSkippedAndTheMi210IsFoundWithItsRenderNodeAndBus() throws IOException {
        node(0, "amd-kfd-topology-mi210-node0-cpu-properties.txt");
        node(1, "amd-kfd-topology-mi210-node0-cpu-properties.txt");
        node(2, "amd-kfd-topology-mi210-node2-properties.txt");

        assertThat(KfdTopology.scan(new HostRoot(root))).singleElement().satisfies(g -> {
            assertThat(g.node()).isEqualTo(2);
            assertThat(g.renderMinor()).isEqualTo(128);
            assertThat(g.vendorId()).isEqualTo(0x1002);
            assertThat(g.deviceId()).isEqualTo(0x740f);
            assertThat(g.pciAddress()).hasToString("0000:63:00.0");
            assertThat(g.gfxTarget()).isEqualTo("gfx90a");
            assertThat(g.uniqueId()).isEqualTo(1801979520617338022L);
        });
    }

    @Test
    void theMi308xIsAGfx942OnItsOwnBus() throws IOException {
        node(2, "amd-kfd-topology-mi308-node2-properties.txt");

        assertThat(KfdTopology.scan(new HostRoot(root))).singleElement().satisfies(g -> {
            assertThat(g.deviceId()).isEqualTo(0x74a2);
            assertThat(g.gfxTarget()).isEqualTo("gfx942");
            assertThat(g.pciAddress()).hasToString("0000:0a:00.0"); // location_id 2560 = 0x0a00
        });
    }

    @Test
    void aMachineWithoutKfdHasNoAmdComputeGpu() {
        assertThat(KfdTopology.scan(new HostRoot(root))).isEmpty();
    }

    @Test
    void pciAddressesCompareAcrossNvidiaSysfsAndKfdForms() {
        assertThat(PciAddress.parse("00000000:3B:00.0")).contains(new PciAddress(0, 0x3b, 0, 0));
        assertThat(PciAddress.parse("0000:3b:00.0")).isEqualTo(PciAddress.parse("00000000:3B:00.0"));
        assertThat(PciAddress.fromKfd(0, 25344)).isEqualTo(PciAddress.parse("63:00.0").orElseThrow());
        assertThat(PciAddress.parse("not-an-address")).isEmpty();
    }
}
