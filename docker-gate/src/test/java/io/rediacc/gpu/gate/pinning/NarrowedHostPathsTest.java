package io.rediacc.gpu.gate.pinning;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A root taken out of a repo's hostPaths takes back what earlier creates pinned beneath it (found by a red team,
 * 2026-12-07): the pins go at the manifest's reload and at the next gate start, so their containers' and volumes'
 * next start fails instead of mounting what the repo may no longer reach. Pins of a root still listed stay. As root,
 * with real mounts.
 */
class NarrowedHostPathsTest extends OneRepoPins {

    NarrowedHostPathsTest() {
        super("narrowed", "99999999-9999-4999-8999-999999999999");
    }

    @Test
    void aReloadDropsThePinsOfARootThatLeftHostPathsAndKeepsTheOthers() throws IOException {
        Path other = Files.createDirectories(dir.resolve("mounts/other"));
        hostPathsNow(root, other);
        Pins pins = pins();
        create(pins, 1);
        String keptToken = pins.newToken();
        pins.pin(repo, keptToken, io.rediacc.gpu.gate.policy.BindPins.Owner.CONTAINER, other + "/kept", true);
        pins.save(repo);
        pins.commit(repo, keptToken);
        assertThat(pins.pins(repo)).hasSize(3);

        hostPathsNow(other);
        int dropped = pins.dropOutsideHostPaths(repo);
        pins.flush();

        assertThat(dropped).isEqualTo(2);
        assertThat(pins.pins(repo)).singleElement().satisfies(r -> assertThat(r.token()).isEqualTo(keptToken));
        assertThat(BindPinner.mountsUnder(pinRoot)).hasSize(1);
        assertThat(pins.dropOutsideHostPaths(repo)).as("nothing more to drop").isZero();
    }

    @Test
    void aGateStartingAfterTheRootLeftDropsItsPinsThoughStillMounted() throws IOException {
        Pins pins = pins();
        create(pins, 1);
        pins.flush();
        assertThat(BindPinner.mountsUnder(pinRoot)).hasSize(2);

        hostPathsNow();
        Pins restarted = pins(); // restore: the pins are still mounted on the same objects, but their root is gone
        restarted.flush();

        assertThat(restarted.pins(repo)).isEmpty();
        assertThat(BindPinner.mountsUnder(pinRoot)).isEmpty();
    }
}
