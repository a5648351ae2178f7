package io.rediacc.gpu.gate.pinning;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link BindPinner} against a temporary directory, as root (as the gate runs): the pin is the
 * object opened, later swaps of the path change nothing it shows, symlinks that stay beneath the
 * root work, one that leads out is refused, and nothing is left mounted after an unpin or a refusal.
 */
class BindPinnerTest {

    private Path dir;
    private Path root;
    private Path pins;

    @BeforeEach
    void setUp() throws IOException {
        dir = Files.createTempDirectory("pinner");
        root = Files.createDirectories(dir.resolve("repo"));
        pins = Files.createDirectories(dir.resolve("pins"));
        Files.createDirectories(root.resolve("work/d"));
        Files.writeString(root.resolve("work/d/checked"), "the checked directory\n");
    }

    @AfterEach
    void tearDown() throws IOException {
        for (Path point : BindPinner.mountsUnder(dir)) {
            BindPinner.unpin(point);
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static final BindPinner.Judge ANY = physical -> { };

    @Test
    void aPinShowsTheObjectOpenedEvenAfterThePathIsSwappedForALinkToTheRoot() throws IOException {
        BindPinner.Pin pin = BindPinner.pin(root, "work/d", false, ANY, pins.resolve("p1"));

        assertThat(pin.physicalPath()).isEqualTo(root.resolve("work/d").toString());
        assertThat(BindPinner.mountsUnder(pins)).containsExactly(pins.resolve("p1"));
        // the repo swaps the checked directory for a symlink to the host's root
        Files.move(root.resolve("work/d"), root.resolve("work/moved"));
        Files.createSymbolicLink(root.resolve("work/d"), Path.of("/"));

        assertThat(Files.readString(pins.resolve("p1/checked"))).isEqualTo("the checked directory\n");
        assertThat(Files.exists(pins.resolve("p1/etc"))).isFalse();
        assertThat(BindPinner.holds(pins.resolve("p1"), pin.dev(), pin.ino())).isTrue();
    }

    @Test
    void aRelativeLinkThatStaysBeneathTheRootIsFollowedAndJudgedWhereItLeads() throws IOException {
        Files.createDirectories(root.resolve("data"));
        Files.writeString(root.resolve("data/f"), "data\n");
        Files.createSymbolicLink(root.resolve("work/link"), Path.of("../data"));
        StringBuilder judged = new StringBuilder();

        BindPinner.pin(root, "work/link", false, judged::append, pins.resolve("p"));

        assertThat(judged.toString()).isEqualTo(root.resolve("data").toString());
        assertThat(Files.readString(pins.resolve("p/f"))).isEqualTo("data\n");
    }

    @Test
    void aLinkLeadingOutOfTheRootIsRefusedWithWhatToDoAndNothingIsMounted() throws IOException {
        Files.createSymbolicLink(root.resolve("work/abs"), Path.of("/etc"));
        Files.createSymbolicLink(root.resolve("work/up"), Path.of("../../.."));

        for (String rel : new String[] {"work/abs", "work/up", "work/up/etc", "work/abs/.."}) {
            if (rel.endsWith("..")) {
                assertThatThrownBy(() -> BindPinner.pin(root, rel, false, ANY, pins.resolve("x")))
                        .isInstanceOf(IllegalArgumentException.class);
                continue;
            }
            assertThatThrownBy(() -> BindPinner.pin(root, rel, false, ANY, pins.resolve("x")))
                    .isInstanceOf(BindPinner.Refused.class)
                    .hasMessageContaining("leads out of the hostPaths root " + root)
                    .hasMessageContaining("replace the link")
                    .satisfies(e -> assertThat(((BindPinner.Refused) e).kind()).isEqualTo(BindPinner.Refused.Kind.ESCAPES_ROOT));
        }
        assertThat(BindPinner.mountsUnder(pins)).isEmpty();
        assertThat(Files.exists(pins.resolve("x"))).isFalse();
    }

    @Test
    void theJudgeSeesThePhysicalPathAndItsRefusalLeavesNothingBehind() {
        assertThatThrownBy(() -> BindPinner.pin(root, "work/d", false, physical -> {
            throw new BindPinner.Refused(BindPinner.Refused.Kind.PROTECTED, "no: " + physical);
        }, pins.resolve("p"))).hasMessage("no: " + root.resolve("work/d"));

        assertThat(BindPinner.mountsUnder(pins)).isEmpty();
        assertThat(Files.exists(pins.resolve("p"))).isFalse();
    }

    @Test
    void aMissingPathIsRefusedOrCreatedBeneathTheRootWhenAsked() throws IOException {
        assertThatThrownBy(() -> BindPinner.pin(root, "work/new/deeper", false, ANY, pins.resolve("p")))
                .hasMessageContaining("does not exist; create it first");

        BindPinner.Pin pin = BindPinner.pin(root, "work/new/deeper", true, ANY, pins.resolve("p"));

        assertThat(Files.isDirectory(root.resolve("work/new/deeper"))).isTrue();
        assertThat(pin.physicalPath()).isEqualTo(root.resolve("work/new/deeper").toString());
        // a missing directory under a link that leads out is not created out there
        Files.createSymbolicLink(root.resolve("work/out"), dir.resolve("elsewhere"));
        Files.createDirectories(dir.resolve("elsewhere"));
        assertThatThrownBy(() -> BindPinner.pin(root, "work/out/made", true, ANY, pins.resolve("q")))
                .hasMessageContaining("leads out");
        assertThat(Files.exists(dir.resolve("elsewhere/made"))).isFalse();
    }

    @Test
    void aFileIsPinnedOntoAFileAndADeviceNodeIsRefused() throws IOException {
        BindPinner.Pin pin = BindPinner.pin(root, "work/d/checked", false, ANY, pins.resolve("f"));

        assertThat(pin.directory()).isFalse();
        assertThat(Files.readString(pins.resolve("f"))).isEqualTo("the checked directory\n");
        Files.createSymbolicLink(root.resolve("null"), Path.of("/dev/null"));
        assertThatThrownBy(() -> BindPinner.pin(root, "null", false, ANY, pins.resolve("n"))).hasMessageContaining("leads out");
    }

    @Test
    void unpinRemovesTheMountAndTheTargetAndRepinChecksTheObject() throws IOException {
        BindPinner.Pin pin = BindPinner.pin(root, "work/d", false, ANY, pins.resolve("p"));

        BindPinner.unpin(pins.resolve("p"));
        BindPinner.unpin(pins.resolve("p")); // twice is fine

        assertThat(BindPinner.mountsUnder(pins)).isEmpty();
        assertThat(Files.exists(pins.resolve("p"))).isFalse();
        assertThat(BindPinner.repin(root, "work/d", pin.dev(), pin.ino(), pins.resolve("p"))).isTrue();
        assertThat(Files.readString(pins.resolve("p/checked"))).isEqualTo("the checked directory\n");
        BindPinner.unpin(pins.resolve("p"));
        // the same path, another object: not pinned again
        Files.move(root.resolve("work/d"), root.resolve("work/old"));
        Files.createDirectories(root.resolve("work/d"));
        assertThat(BindPinner.repin(root, "work/d", pin.dev(), pin.ino(), pins.resolve("p"))).isFalse();
        assertThat(BindPinner.mountsUnder(pins)).isEmpty();
    }
}
