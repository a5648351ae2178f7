package io.rediacc.gpu.contracts.manifest;

import java.util.List;

/**
 * What the manifest says about one repo's reach on the host.
 *
 * @param hostPaths       absolute roots under which the repo may bind host paths (none by default)
 * @param volumeDrivers   volume drivers besides {@code local} the repo may use (plugins the owner installed)
 * @param logDrivers      log drivers besides the built-in ones the repo may use
 * @param daemonConfigDir the repo daemon's configuration directory, never reachable (may be null)
 * @param daemonDataRoot  the repo daemon's data root, never reachable (may be null; the daemon's
 *                        {@code GET /info} {@code DockerRootDir} is protected too once known)
 */
public record RepoHostAccess(List<String> hostPaths, List<String> volumeDrivers, List<String> logDrivers,
                             String daemonConfigDir, String daemonDataRoot) {

    public static final RepoHostAccess NONE = new RepoHostAccess(List.of(), List.of(), List.of(), null, null);

    public RepoHostAccess {
        hostPaths = List.copyOf(hostPaths);
        volumeDrivers = List.copyOf(volumeDrivers);
        logDrivers = List.copyOf(logDrivers);
    }
}
