package io.rediacc.gpu.gate.manifest;

import io.rediacc.gpu.contracts.events.RepoInfo;

import java.util.List;
import java.util.Optional;

/** The repos manifest: the machine's name and every repo served on it (shared with node-agent). */
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
