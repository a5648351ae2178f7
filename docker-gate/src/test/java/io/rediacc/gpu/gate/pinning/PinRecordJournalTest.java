package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.gate.policy.BindPins;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pin record of a repo (issue 34): a create appends its changes to the journal instead of
 * rewriting every pin the repo holds, the record read back at start is the snapshot with the
 * journal replayed (a torn last append ignored, anything else unreadable refused), and the journal
 * is folded into a new snapshot once it outgrows the record. As root, with real mounts ({@link Pins}).
 */
class PinRecordJournalTest extends OneRepoPins {

    private static final String GUID = "66666666-6666-4666-8666-666666666666";

    PinRecordJournalTest() {
        super("journal", GUID);
    }

    private Path snapshot() {
        return state.resolve("pins/" + GUID + ".json");
    }

    private Path journal() {
        return state.resolve("pins/" + GUID + ".journal");
    }

    @Test
    void aCreateAppendsItsPinsToTheJournalAndLeavesTheRecordOfEarlierPinsAlone() throws IOException {
        Pins pins = pins();
        for (int i = 0; i < 40; i++) {
            create(pins, i);
        }
        pins.flush();
        String before = Files.readString(snapshot());
        long journalBefore = Files.size(journal());

        String token = create(pins, 40);
        pins.flush();

        assertThat(Files.readString(snapshot())).isEqualTo(before);
        long appended = Files.size(journal()) - journalBefore;
        assertThat(appended).isPositive();
        // two pins made and two committed: four lines, whatever the record holds already
        assertThat(Files.readAllLines(journal()).stream().filter(l -> l.contains(token)).count()).isEqualTo(4);
        assertThat(new PinStore(state).load(GUID)).hasSize(82).allMatch(PinRecord::committed);
    }

    @Test
    void theRecordReadAtStartIsTheSnapshotWithTheJournalReplayed() {
        Pins pins = pins();
        String kept = create(pins, 0);
        String released = create(pins, 1);
        pins.release(repo, released);
        String pending = pins.newToken();
        pins.pin(repo, pending, BindPins.Owner.CONTAINER, root + "/work/c", true);
        pins.save(repo);
        pins.flush();

        List<PinRecord> read = new PinStore(state).load(GUID);

        assertThat(read).extracting(PinRecord::token).containsExactly(kept, kept, pending);
        assertThat(read).extracting(PinRecord::committed).containsExactly(true, true, false);
        assertThat(read).isEqualTo(pins.pins(repo));
        // a restarted gate keeps them all (still mounted on the same objects) and folds the journal in
        Pins restarted = pins();
        assertThat(restarted.pins(repo)).isEqualTo(read);
        assertThat(journal()).doesNotExist();
        assertThat(BindPinner.mountsUnder(pinRoot.resolve(GUID))).hasSize(3);
    }

    @Test
    void aTornLastAppendIsIgnoredAndATornLineBeforeItIsRefused() throws IOException {
        Pins pins = pins();
        create(pins, 0);
        pins.flush();
        Files.writeString(journal(), "{\"put\":{\"id\":\"half", StandardOpenOption.APPEND);

        assertThat(new PinStore(state).load(GUID)).hasSize(2);

        Files.writeString(journal(), "\n{\"remove\":\"x\"}\n", StandardOpenOption.APPEND);
        assertThatThrownBy(() -> new PinStore(state).load(GUID))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(GUID + ".journal")
                .hasMessageContaining("Move it aside");
    }

    @Test
    void theJournalIsFoldedIntoANewSnapshotOnceItOutgrowsTheRecord() throws IOException {
        Pins pins = pins();
        String first = create(pins, 0);
        pins.flush();
        // pin and release one bind again and again: the record stays at two pins, the changes pile up
        for (int i = 0; i < Pins.COMPACT_AFTER; i++) {
            String t = pins.newToken();
            pins.pin(repo, t, BindPins.Owner.CONTAINER, root + "/work/x", true);
            pins.save(repo);
            pins.release(repo, t);
            pins.flush();
        }

        // 2 × COMPACT_AFTER changes were made; the journal holds what came after the last snapshot (none right after one)
        assertThat(Files.exists(journal()) ? Files.readAllLines(journal()).size() : 0).isLessThanOrEqualTo(Pins.COMPACT_AFTER);
        assertThat(new PinStore(state).load(GUID)).extracting(PinRecord::token).containsExactly(first, first);
        // the snapshot restore wrote was empty: the pins of the first create got into one written since
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(snapshot().toFile()).size()).isGreaterThanOrEqualTo(2);
    }
}
