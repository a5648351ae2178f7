package io.rediacc.gpu.gate.pinning;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep against the daemon's lists (issue 30): the lists are read before the sweep runs, so a create
 * the daemon answered in between is missing from them while its container exists. Its pin must stay
 * (removing it makes that container's start fail on a missing source); the next sweep, whose lists
 * show the container, keeps it for good, and one whose lists were read after the commit and lack the
 * container removes it. As root, with real mounts ({@link Pins}).
 */
class PinSweepRaceTest extends OneRepoPins {

    private static final String GUID = "77777777-7777-4777-8777-777777777777";

    PinSweepRaceTest() {
        super("sweep", GUID);
    }

    @Test
    void aCreateCommittedAfterTheListsWereReadKeepsItsPinUntilListsReadAfterItLackIt() {
        Pins pins = pins();
        create(pins, 1); // committed before the lists were read: its container is gone
        long listedAfter = pins.commitMark();
        String during = create(pins, 2); // answered by the daemon after it listed its containers

        int removed = pins.sweep(GUID, Set.of(), Set.of(), System.currentTimeMillis(), listedAfter);

        assertThat(removed).isEqualTo(2);
        assertThat(pins.pins(repo)).extracting(PinRecord::token).containsOnly(during).hasSize(2);
        pins.flush();
        assertThat(BindPinner.mountsUnder(pinRoot)).hasSize(2);

        assertThat(pins.sweep(GUID, Set.of(during), Set.of(), System.currentTimeMillis(), pins.commitMark())).isZero();
        assertThat(pins.sweep(GUID, Set.of(), Set.of(), System.currentTimeMillis(), pins.commitMark())).isEqualTo(2);
        pins.flush();
        assertThat(pins.pins(repo)).isEmpty();
        assertThat(BindPinner.mountsUnder(pinRoot)).isEmpty();
    }
}
