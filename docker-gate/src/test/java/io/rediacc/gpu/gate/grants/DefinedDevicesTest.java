package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The names the inventory setup wrote: what is missing there is orphaned; without an inventory nothing is. */
class DefinedDevicesTest {

    private static void write(Path file, Instant modified, String... names) throws Exception {
        List<MachineInventory.CdiDeviceInfo> cdi = java.util.Arrays.stream(names)
                .map(n -> new MachineInventory.CdiDeviceInfo(n, List.of(), "/etc/cdi/x.yaml", "sha256:00", List.of())).toList();
        Files.write(file, EventJson.toBytes(new MachineInventory(MachineInventory.SCHEMA_VERSION, "m1",
                MachineInventory.PLATFORM_LOCAL, "test", Instant.now(), List.of(), cdi, null, null, List.of(), List.of())));
        Files.setLastModifiedTime(file, FileTime.from(modified));
    }

    @Test
    void aNameTheInventoryNoLongerDefinesIsOrphanedUntilSetupDefinesItAgain(@TempDir Path dir) throws Exception {
        Path gate = Files.createDirectories(dir.resolve("etc/rediacc/gate"));
        Path gpu = Files.createDirectories(dir.resolve("etc/rediacc/gpu"));
        Path cdi = Files.createDirectories(dir.resolve("etc/cdi"));
        DefinedDevices defined = DefinedDevices.besideManifest(gate.resolve("repos.yaml"), List.of(cdi.toString()));
        assertThat(defined.file()).isEqualTo(gpu.resolve("inventory.json"));
        assertThat(defined.orphaned("nvidia.com/gpu=0")).as("no inventory: nothing to compare with").isFalse();

        write(defined.file(), Instant.parse("2026-01-01T00:00:00Z"), "rediacc.io/dri=renderD128");
        assertThat(defined.orphaned("nvidia.com/gpu=0")).isTrue();
        assertThat(defined.orphaned("rediacc.io/dri=renderD128")).isFalse();

        write(defined.file(), Instant.parse("2026-01-01T00:01:00Z"), "rediacc.io/dri=renderD128", "nvidia.com/gpu=0");
        assertThat(defined.orphaned("nvidia.com/gpu=0")).as("setup brought the device back").isFalse();

        // a spec added or regenerated without setup defines a name the inventory lacks: the runtime resolves it
        assertThat(defined.orphaned("example.com/fpga=0")).isTrue();
        Files.writeString(cdi.resolve("fpga.yaml"), """
                cdiVersion: "0.6.0"
                kind: example.com/fpga
                devices:
                  - name: "0"
                    containerEdits:
                      deviceNodes:
                        - path: /dev/fpga0
                """);
        assertThat(defined.orphaned("example.com/fpga=0")).isFalse();

        Files.writeString(defined.file(), "{half");
        assertThat(defined.orphaned("nvidia.com/gpu=0")).as("an unreadable inventory says nothing").isFalse();

        write(defined.file(), Instant.parse("2026-01-01T00:02:00Z"), "rediacc.io/dri=renderD128");
        assertThat(defined.orphaned("nvidia.com/gpu=0")).isTrue();
        Files.delete(defined.file());
        assertThat(defined.orphaned("nvidia.com/gpu=0")).as("the inventory removed: what was read before says nothing now")
                .isFalse();
        write(defined.file(), Instant.EPOCH, "rediacc.io/dri=renderD128");
        assertThat(defined.orphaned("nvidia.com/gpu=0")).as("an inventory dated the epoch counts as none (the runtime refuses)")
                .isFalse();
    }
}
