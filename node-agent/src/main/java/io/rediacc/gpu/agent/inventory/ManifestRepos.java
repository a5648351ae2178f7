package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.manifest.InvalidManifestException;
import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.contracts.manifest.ReposManifest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the agent reports from the machine's repos manifest ({@code /etc/rediacc/gate/repos.yaml}):
 * the machine's name if the manifest names one, and each repo's name, GUID and fork parent. The
 * manifest is read by contracts' {@link ManifestLoader}, the gate's own reader, so agent and gate
 * never disagree on a file: a manifest the gate refuses yields no repos and the gate's message.
 *
 * @param warnings what was wrong with the manifest (empty when it is valid or absent)
 */
public record ManifestRepos(Optional<String> machine, List<RepoInfo> repos, List<String> warnings) {

    /** No manifest: no gate on this machine (yet), so no repos. */
    public static final ManifestRepos NONE = new ManifestRepos(Optional.empty(), List.of(), List.of());

    public ManifestRepos {
        repos = List.copyOf(repos);
        warnings = List.copyOf(warnings);
    }

    public static ManifestRepos read(Path file) {
        if (!Files.exists(file)) {
            return NONE;
        }
        try {
            // without machine: the agent's own rule applies (agent.machine, then /etc/hostname): no fallback here
            ReposManifest manifest = ManifestLoader.load(file, () -> null);
            return new ManifestRepos(Optional.ofNullable(manifest.machine()), manifest.repoInfos(), List.of());
        } catch (InvalidManifestException e) {
            return new ManifestRepos(Optional.empty(), List.of(), List.of(e.getMessage()
                    + "; its repos are left out until it is fixed (the gate refuses it too)"));
        }
    }

    /** True when the manifest was absent or valid. */
    public boolean valid() {
        return warnings.isEmpty();
    }
}
