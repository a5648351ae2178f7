package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.policy.BindPins;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.service.ManifestHostAccess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * One repo's {@link Pins} on a temporary machine: a hostPaths root with {@code work/} beneath it, the
 * gate's state directory and its pin root outside the root. As root, with real mounts, which
 * {@link #tearDown} undoes.
 */
abstract class OneRepoPins {

    final String guid;
    final RepoIdentity repo;
    Path dir;
    Path root;
    Path state;
    Path pinRoot;
    private ManifestHostAccess access;

    OneRepoPins(String name, String guid) {
        this.guid = guid;
        this.repo = new RepoIdentity(name, guid, "m-" + name, false);
    }

    @BeforeEach
    void setUp() throws IOException {
        dir = Files.createTempDirectory("pins-" + repo.name());
        root = Files.createDirectories(dir.resolve("mounts/repo"));
        Files.createDirectories(root.resolve("work"));
        Path manifest = writeManifest(root);
        state = Files.createDirectories(dir.resolve("state"));
        pinRoot = dir.resolve("binds");
        access = new ManifestHostAccess(manifest, state, pinRoot, ManifestLoader.load(manifest));
    }

    /** The manifest changed: the repo's hostPaths are now {@code roots} (none when empty), as a reload reads them. */
    void hostPathsNow(Path... roots) throws IOException {
        access.update(ManifestLoader.load(writeManifest(roots)));
    }

    /** The one repo's manifest with these hostPaths roots. */
    private Path writeManifest(Path... roots) throws IOException {
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: %s
                repos:
                  - name: %s
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: tcp://127.0.0.1:1
                    hostPaths: [%s]
                """.formatted(repo.machine(), repo.name(), guid,
                String.join(", ", java.util.Arrays.stream(roots).map(Path::toString).toList())));
        return manifest;
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

    /** The repo's pins as a gate starting now finds them. */
    Pins pins() {
        Pins pins = new Pins(pinRoot, state, access);
        pins.checkOutside(List.of(root.toString()));
        pins.restore(repo);
        return pins;
    }

    /** One create of two binds, as the gate makes it: pinned, saved, then committed (the daemon's 201). */
    String create(Pins pins, int n) {
        String token = pins.newToken();
        pins.pin(repo, token, BindPins.Owner.CONTAINER, root + "/work/a" + n, true);
        pins.pin(repo, token, BindPins.Owner.CONTAINER, root + "/work/b" + n, true);
        pins.save(repo);
        pins.commit(repo, token);
        return token;
    }
}
