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
import java.util.Map;
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

    /**
     * The file as setup wrote it, for publication: its bytes unchanged (as UTF-8 text; JSON is
     * UTF-8), their SHA-256 and size, and setup's {@code generatedAt}. The content is left out above
     * {@link MachineInventory#MAX_SETUP_FILE_BYTES} so the record stays far below Kafka's limit.
     */
    public static MachineInventory.SetupFile setupFile(byte[] bytes, MachineInventory recorded) {
        String sha256;
        try {
            sha256 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
        String content = bytes.length <= MachineInventory.MAX_SETUP_FILE_BYTES ? new String(bytes, StandardCharsets.UTF_8) : null;
        return new MachineInventory.SetupFile(recorded.generatedAt(), sha256, content, bytes.length);
    }

    /** The file's bytes and its record; empty when there is none, or it cannot be read as one (the reason goes to {@code problem}). */
    public static Optional<Map.Entry<byte[], MachineInventory>> readWithBytes(HostRoot host, StringBuilder problem) {
        try {
            byte[] bytes = Files.readAllBytes(path(host));
            return Optional.of(Map.entry(bytes, EventJson.fromBytes(bytes, MachineInventory.class)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            if (problem != null) {
                problem.append(HostRoot.INVENTORY).append(": ").append(e.getMessage());
            }
            return Optional.empty();
        }
    }

    /** The file's record; empty when there is none, or it cannot be read as one (the reason goes to {@code problem}). */
    public static Optional<MachineInventory> read(HostRoot host, StringBuilder problem) {
        return readWithBytes(host, problem).map(Map.Entry::getValue);
    }
}
