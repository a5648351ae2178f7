package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.policy.BindPins;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.service.ManifestHostAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pin record of a repo (issue 34): a create appends its changes to the journal instead of
 * rewriting every pin the repo holds, the record read back at start is the snapshot with the
 * journal replayed (a torn last append ignored, anything else unreadable refused), and the journal
 * is folded into a new snapshot once it outgrows the record. As root, with real mounts ({@link Pins}).
 */
class PinRecordJournalTest {

    private static final String GUID = "66666666-6666-4666-8666-666666666666";
    private static final RepoIdentity REPO = new RepoIdentity("journal", GUID, "m-journal", false);

    private Path dir;
    private Path root;
    private Path state;
    private Path pinRoot;
    private ManifestHostAccess access;

    @BeforeEach
    void setUp() throws IOException {
        dir = Files.createTempDirectory("pin-journal");
        root = Files.createDirectories(dir.resolve("mounts/repo"));
        Files.createDirectories(root.resolve("work"));
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: m-journal
                repos:
                  - name: journal
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: tcp://127.0.0.1:1
                    hostPaths: [%s]
                """.formatted(GUID, root));
        state = Files.createDirectories(dir.resolve("state"));
        pinRoot = dir.resolve("binds");
        access = new ManifestHostAccess(manifest, state, pinRoot, ManifestLoader.load(manifest));
    }

    @AfterEach
    void tearDown() throws IOException {
        BindPinner.unmountAll(dir);
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private Pins pins() {
        Pins pins = new Pins(pinRoot, state, access);
        pins.checkOutside(List.of(root.toString()));
        pins.restore(REPO);
        return pins;
    }

    /** One create of two binds, as the gate makes it: pinned, saved, then committed (the daemon's 201). */
    private String create(Pins pins, int n) {
        String token = pins.newToken();
        pins.pin(REPO, token, BindPins.Owner.CONTAINER, root + "/work/a" + n, true);
        pins.pin(REPO, token, BindPins.Owner.CONTAINER, root + "/work/b" + n, true);
        pins.save(REPO);
        pins.commit(REPO, token);
        return token;
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
        pins.release(REPO, released);
        String pending = pins.newToken();
        pins.pin(REPO, pending, BindPins.Owner.CONTAINER, root + "/work/c", true);
        pins.save(REPO);
        pins.flush();

        List<PinRecord> read = new PinStore(state).load(GUID);

        assertThat(read).extracting(PinRecord::token).containsExactly(kept, kept, pending);
        assertThat(read).extracting(PinRecord::committed).containsExactly(true, true, false);
        assertThat(read).isEqualTo(pins.pins(REPO));
        // a restarted gate keeps them all (still mounted on the same objects) and folds the journal in
        Pins restarted = pins();
        assertThat(restarted.pins(REPO)).isEqualTo(read);
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
            pins.pin(REPO, t, BindPins.Owner.CONTAINER, root + "/work/x", true);
            pins.save(REPO);
            pins.release(REPO, t);
            pins.flush();
        }

        // 2 × COMPACT_AFTER changes were made; the journal holds what came after the last snapshot (none right after one)
        assertThat(Files.exists(journal()) ? Files.readAllLines(journal()).size() : 0).isLessThanOrEqualTo(Pins.COMPACT_AFTER);
        assertThat(new PinStore(state).load(GUID)).extracting(PinRecord::token).containsExactly(first, first);
        // the snapshot restore wrote was empty: the pins of the first create got into one written since
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(snapshot().toFile()).size()).isGreaterThanOrEqualTo(2);
    }
}
