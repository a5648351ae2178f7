package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.cdi.CdiSpecDirectory;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The CDI names the machine defines: those of its inventory ({@code /etc/rediacc/gpu/inventory.json}, which
 * setup writes from what it read back from the CDI spec directory) and, for a name missing there, those the
 * CDI spec directories define now (a spec regenerated or added without setup). A granted name missing from
 * both is orphaned: a setup removed its device. The inventory is read again whenever it changes (size or
 * modification time); when there is none, or it cannot be read, nothing is called orphaned (the daemon
 * resolves the name or refuses it).
 */
public final class DefinedDevices {

    private final Path file;
    private final List<Path> specDirs;
    private volatile Snapshot last;

    private record Snapshot(long modified, long size, Set<String> names) {
    }

    public DefinedDevices(Path file, List<Path> specDirs) {
        this.file = file;
        this.specDirs = List.copyOf(specDirs);
    }

    /**
     * The inventory beside the gate's directory (/etc/rediacc/gate/repos.yaml → /etc/rediacc/gpu/inventory.json)
     * and the spec directories the repo daemons read (gate.daemon-check.cdi-spec-dirs).
     */
    public static DefinedDevices besideManifest(Path manifest, List<String> specDirs) {
        return new DefinedDevices(manifest.toAbsolutePath().getParent().resolveSibling("gpu").resolve("inventory.json"),
                specDirs.stream().map(Path::of).toList());
    }

    public Path file() {
        return file;
    }

    /** True when the inventory can be read and neither it nor the spec directories define {@code cdiName}. */
    public boolean orphaned(String cdiName) {
        Set<String> names = names();
        if (names == null || names.contains(cdiName)) {
            return false;
        }
        for (Path dir : specDirs) {
            if (CdiSpecDirectory.load(dir).devices().containsKey(cdiName)) {
                return false; // defined since setup (a regenerated or added spec): the runtime resolves it
            }
        }
        return true;
    }

    /** The defined names, or null when no inventory can say. */
    Set<String> names() {
        // Asked for every granted name of every create: java.io.File's stat answers 0 for a missing file where
        // Files.readAttributes throws, and that exception's stack trace, made per create on a machine without an
        // inventory, was 7.6 % of the gate's event-loop CPU (issue 34). A file whose time is the epoch itself
        // counts as missing: nothing is then called orphaned, as for an unreadable inventory.
        File onDisk = file.toFile();
        long modified = onDisk.lastModified();
        if (modified == 0L) {
            return null; // no inventory (a machine not set up by rdc, a test): nothing to compare with
        }
        long size = onDisk.length();
        Snapshot seen = last;
        if (seen != null && seen.modified() == modified && seen.size() == size) {
            return seen.names();
        }
        Set<String> names;
        try {
            MachineInventory inventory = EventJson.fromBytes(Files.readAllBytes(file), MachineInventory.class);
            names = inventory.cdiDevices().stream().map(MachineInventory.CdiDeviceInfo::name).collect(Collectors.toUnmodifiableSet());
        } catch (IOException | RuntimeException e) {
            names = null; // half-written or foreign: say nothing rather than call a live grant orphaned
        }
        last = new Snapshot(modified, size, names);
        return names;
    }
}
