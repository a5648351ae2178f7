package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.policy.BindPins;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.service.ManifestHostAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep against the daemon's lists (issue 30): the lists are read before the sweep runs, so a create
 * the daemon answered in between is missing from them while its container exists. Its pin must stay
 * (removing it makes that container's start fail on a missing source); the next sweep, whose lists
 * show the container, keeps it for good, and one whose lists were read after the commit and lack the
 * container removes it. As root, with real mounts ({@link Pins}).
 */
class PinSweepRaceTest {

    private static final String GUID = "77777777-7777-4777-8777-777777777777";
    private static final RepoIdentity REPO = new RepoIdentity("sweep", GUID, "m-sweep", false);

    private Path dir;
    private Path root;
    private Path state;
    private Path pinRoot;
    private ManifestHostAccess access;

    @BeforeEach
    void setUp() throws IOException {
        dir = Files.createTempDirectory("pin-sweep");
        root = Files.createDirectories(dir.resolve("mounts/repo"));
        Files.createDirectories(root.resolve("work"));
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: m-sweep
                repos:
                  - name: sweep
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
    void aCreateCommittedAfterTheListsWereReadKeepsItsPinUntilListsReadAfterItLackIt() {
        Pins pins = pins();
        String before = create(pins, 1); // committed before the lists were read: its container is gone
        long listedAfter = pins.commitMark();
        String during = create(pins, 2); // answered by the daemon after it listed its containers

        int removed = pins.sweep(GUID, Set.of(), Set.of(), System.currentTimeMillis(), listedAfter);

        assertThat(removed).isEqualTo(2);
        assertThat(pins.pins(REPO)).extracting(PinRecord::token).containsOnly(during).hasSize(2);
        pins.flush();
        assertThat(BindPinner.mountsUnder(pinRoot)).hasSize(2);

        assertThat(pins.sweep(GUID, Set.of(during), Set.of(), System.currentTimeMillis(), pins.commitMark())).isZero();
        assertThat(pins.sweep(GUID, Set.of(), Set.of(), System.currentTimeMillis(), pins.commitMark())).isEqualTo(2);
        pins.flush();
        assertThat(pins.pins(REPO)).isEmpty();
        assertThat(BindPinner.mountsUnder(pinRoot)).isEmpty();
        assertThat(before).isNotEqualTo(during);
    }
}
