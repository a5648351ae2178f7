package io.rediacc.gpu.gate.pinning;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The pins of each repo in the gate's state directory, one small JSON file per repo
 * ({@code pins/<repo guid>.json}), replaced atomically (written beside it, then renamed): after a
 * crash the file is the old or the new list, never half of one. Mounts the file does not list are
 * found by the start-up sweep of the pin directory ({@link Pins#restore}).
 */
final class PinStore {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<PinRecord>> LIST = new TypeReference<>() {
    };

    private final Path dir;

    PinStore(Path stateDir) {
        this.dir = stateDir.resolve("pins");
    }

    List<PinRecord> load(String repoGuid) {
        Path file = file(repoGuid);
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            return JSON.readValue(file.toFile(), LIST);
        } catch (IOException e) {
            throw new UncheckedIOException("the gate's pin record " + file + " cannot be read (" + e.getMessage()
                    + "); the gate does not serve repo " + repoGuid + " without it. Move it aside to start over: every"
                    + " container with binds of that repo then has to be recreated", e);
        }
    }

    void save(String repoGuid, List<PinRecord> pins) {
        try {
            Files.createDirectories(dir);
            Path file = file(repoGuid);
            Path tmp = dir.resolve(repoGuid + ".json.tmp");
            Files.write(tmp, JSON.writeValueAsBytes(pins));
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the gate cannot write its pin record in " + dir + ": " + e.getMessage(), e);
        }
    }

    private Path file(String repoGuid) {
        return dir.resolve(repoGuid + ".json");
    }
}
