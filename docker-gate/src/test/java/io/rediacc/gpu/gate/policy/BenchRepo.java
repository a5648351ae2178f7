package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.pinning.Pins;
import io.rediacc.gpu.gate.service.ManifestHostAccess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The one repo the in-process gate benches (PinCostBench, CreatePathBench) judge creates for: a manifest that
 * allows {@code root}, the gate's pins under {@code dir/binds}, and the policy, set up as the gate's start does.
 */
record BenchRepo(GatePolicy policy, Pins pins, RepoIdentity repo, String guid, Path pinRoot) {

    static final String GUID = "55555555-5555-4555-8555-555555555555";

    static BenchRepo under(Path dir, Path root) throws IOException {
        Path manifest = Files.createDirectories(dir.resolve("etc")).resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: m-bench
                repos:
                  - name: bench
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: tcp://127.0.0.1:1
                    hostPaths: [%s]
                """.formatted(GUID, root));
        Path state = Files.createDirectories(dir.resolve("state"));
        Path pinRoot = dir.resolve("binds");
        ManifestHostAccess access = new ManifestHostAccess(manifest, state, pinRoot, ManifestLoader.load(manifest));
        Pins pins = new Pins(pinRoot, state, access);
        pins.checkOutside(List.of(root.toString())); // as the gate's start: the pin root a private mount
        return new BenchRepo(new GatePolicy(64 * 1024, access, pins), pins, new RepoIdentity("bench", GUID, "m-bench", false),
                GUID, pinRoot);
    }
}
