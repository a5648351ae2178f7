package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.agent.host.AtomicFiles;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** {@code /etc/rediacc/gpu/inventory.json}: the contracts' {@link MachineInventory}, pretty-printed, written atomically. */
public final class InventoryFile {

    private InventoryFile() {
    }

    public static Path path(HostRoot host) {
        return host.path(HostRoot.INVENTORY);
    }

    public static void write(HostRoot host, MachineInventory inventory) throws IOException {
        byte[] json = (EventJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(inventory) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(path(host), json);
    }

    /** The file's record; empty when there is none, or it cannot be read as one (the reason goes to {@code problem}). */
    public static Optional<MachineInventory> read(HostRoot host, StringBuilder problem) {
        try {
            return Optional.of(EventJson.fromBytes(Files.readAllBytes(path(host)), MachineInventory.class));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            if (problem != null) {
                problem.append(HostRoot.INVENTORY).append(": ").append(e.getMessage());
            }
            return Optional.empty();
        }
    }
}
