package io.rediacc.gpu.gate.daemon;

import java.util.Map;
import java.util.Optional;

/**
 * What the repo daemons reported about themselves, for rules that need it: each daemon's data root
 * ({@code GET /info} {@code DockerRootDir}), a host path no repo may bind even where its allowlist
 * names an ancestor. Only daemons that have answered are listed; a caller that must protect a data
 * root it does not know yet should refuse rather than assume.
 */
public interface DaemonFacts {

    /** The data root of the daemon of the repo with this GUID, once it has answered GET /info. */
    Optional<String> dockerRootDir(String repoGuid);

    /** Every known data root, by repo GUID. */
    Map<String, String> dockerRootDirs();
}
