package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The CDI names the machine's inventory defines ({@code /etc/rediacc/gpu/inventory.json}, which setup writes
 * from what it read back from the CDI spec directory). A granted name missing there is orphaned: a setup
 * removed its device. Read again whenever the file changes (size or modification time); when there is no
 * inventory, or it cannot be read, nothing is called orphaned (the daemon resolves the name or refuses it).
 */
public final class DefinedDevices {

    private final Path file;
    private volatile Snapshot last;

    private record Snapshot(long modified, long size, Set<String> names) {
    }

    public DefinedDevices(Path file) {
        this.file = file;
    }

    /** The inventory beside the gate's directory: /etc/rediacc/gate/repos.yaml → /etc/rediacc/gpu/inventory.json. */
    public static DefinedDevices besideManifest(Path manifest) {
        return new DefinedDevices(manifest.toAbsolutePath().getParent().resolveSibling("gpu").resolve("inventory.json"));
    }

    public Path file() {
        return file;
    }

    /** True when the inventory can be read and does not define {@code cdiName}. */
    public boolean orphaned(String cdiName) {
        Set<String> names = names();
        return names != null && !names.contains(cdiName);
    }

    /** The defined names, or null when no inventory can say. */
    Set<String> names() {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            return null; // no inventory (a machine not set up by rdc, a test): nothing to compare with
        }
        long modified = attributes.lastModifiedTime().toMillis();
        Snapshot seen = last;
        if (seen != null && seen.modified() == modified && seen.size() == attributes.size()) {
            return seen.names();
        }
        Set<String> names;
        try {
            MachineInventory inventory = EventJson.fromBytes(Files.readAllBytes(file), MachineInventory.class);
            names = inventory.cdiDevices().stream().map(MachineInventory.CdiDeviceInfo::name).collect(Collectors.toUnmodifiableSet());
        } catch (IOException | RuntimeException e) {
            names = null; // half-written or foreign: say nothing rather than call a live grant orphaned
        }
        last = new Snapshot(modified, attributes.size(), names);
        return names;
    }
}
