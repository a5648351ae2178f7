package io.rediacc.gpu.gate.pinning;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pins of each repo in the gate's state directory: a snapshot ({@code pins/<repo guid>.json},
 * a JSON array, replaced atomically: written beside it, then renamed) and the changes made since
 * it ({@code pins/<repo guid>.journal}, one JSON object a line, appended). A create changes two
 * entries of a record that may hold thousands, so it appends them instead of rewriting the whole
 * record (which made every create cost O(pins), issue 34); {@link Pins} writes a new snapshot and
 * empties the journal once the journal outgrows the record.
 *
 * <p>After a crash the snapshot is the old or the new list, never half of one, and the journal is
 * every change appended before it, perhaps with a torn last line, which is ignored: it is a change
 * whose write did not finish, the same as a crash before the write (a pin the record lacks is
 * removed by the start-up sweep, {@link Pins#restore}). Replaying a journal over a snapshot that
 * already holds its changes gives the same list, so a crash between the snapshot's rename and the
 * journal's removal loses nothing.
 */
final class PinStore {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<PinRecord>> LIST = new TypeReference<>() {
    };

    /** One change of a repo's pins: a record added or replaced ({@code put}), or one removed by its id. */
    record Change(PinRecord put, String remove) {
        static Change put(PinRecord record) {
            return new Change(record, null);
        }

        static Change remove(String id) {
            return new Change(null, id);
        }
    }

    private final Path dir;

    PinStore(Path stateDir) {
        this.dir = stateDir.resolve("pins");
    }

    /** The snapshot with the journal's changes applied, in the order the pins were made. */
    List<PinRecord> load(String repoGuid) {
        Path file = file(repoGuid);
        Map<String, PinRecord> pins = new LinkedHashMap<>();
        if (Files.exists(file)) {
            try {
                for (PinRecord r : JSON.readValue(file.toFile(), LIST)) {
                    pins.put(r.id(), r);
                }
            } catch (IOException e) {
                throw unreadable(file, repoGuid, e.getMessage(), e);
            }
        }
        Path journal = journal(repoGuid);
        if (Files.exists(journal)) {
            List<String> lines;
            try {
                // decoded leniently: a torn last line may end inside a UTF-8 sequence
                lines = List.of(new String(Files.readAllBytes(journal), StandardCharsets.UTF_8).split("\n", -1));
            } catch (IOException e) {
                throw unreadable(journal, repoGuid, e.getMessage(), e);
            }
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.isBlank()) {
                    continue;
                }
                try {
                    JsonNode change = JSON.readTree(line);
                    if (change.hasNonNull("put")) {
                        PinRecord r = JSON.treeToValue(change.get("put"), PinRecord.class);
                        pins.put(r.id(), r);
                    } else if (change.hasNonNull("remove")) {
                        pins.remove(change.get("remove").asText());
                    } else {
                        throw new IOException("line " + (i + 1) + " is neither a put nor a remove");
                    }
                } catch (IOException e) {
                    if (i == lines.size() - 1) {
                        break; // a torn last append: the change never finished, as if it had not been made
                    }
                    throw unreadable(journal, repoGuid, "line " + (i + 1) + ": " + e.getMessage(), e);
                }
            }
        }
        return List.copyOf(pins.values());
    }

    /** Replaces the repo's snapshot with {@code pins} and empties its journal. */
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
            Files.deleteIfExists(journal(repoGuid));
        } catch (IOException e) {
            throw new UncheckedIOException("the gate cannot write its pin record in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Appends {@code changes} to the repo's journal, in one write. */
    void append(String repoGuid, List<Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        try {
            StringBuilder lines = new StringBuilder();
            for (Change c : changes) {
                lines.append(c.put() != null ? "{\"put\":" + JSON.writeValueAsString(c.put()) + "}"
                        : "{\"remove\":" + JSON.writeValueAsString(c.remove()) + "}").append('\n');
            }
            Files.createDirectories(dir);
            Files.write(journal(repoGuid), lines.toString().getBytes(StandardCharsets.UTF_8),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("the gate cannot append to its pin journal in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static UncheckedIOException unreadable(Path file, String repoGuid, String why, IOException e) {
        return new UncheckedIOException("the gate's pin record " + file + " cannot be read (" + why
                + "); the gate does not serve repo " + repoGuid + " without it. Move it aside (with "
                + repoGuid + ".json and " + repoGuid + ".journal beside it) to start over: every"
                + " container with binds of that repo then has to be recreated", e);
    }

    private Path file(String repoGuid) {
        return dir.resolve(repoGuid + ".json");
    }

    private Path journal(String repoGuid) {
        return dir.resolve(repoGuid + ".journal");
    }
}
