package io.rediacc.gpu.contracts.manifest;

import io.rediacc.gpu.contracts.events.RepoInfo;

import java.util.List;
import java.util.Optional;

/**
 * The repos manifest ({@code /etc/rediacc/gate/repos.yaml}), as {@link ManifestLoader} read it: the machine's name
 * (null only when the manifest names none and the reader was given no fallback) and every repo served on it.
 * docker-gate, node-agent and machine setup all read it through {@link ManifestLoader}.
 */
public record ReposManifest(String machine, List<RepoEntry> repos) {

    public ReposManifest {
        repos = List.copyOf(repos);
    }

    public Optional<RepoEntry> repo(String name) {
        return repos.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    public List<RepoInfo> repoInfos() {
        return repos.stream().map(RepoEntry::info).toList();
    }
}
