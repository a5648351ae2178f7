package io.rediacc.gpu.gate.policy;

import java.util.List;
import java.util.Set;

/**
 * What the repos manifest lets one repo reach. {@code hostPaths}: absolute roots under which it may
 * bind host paths (none by default); {@code volumeDrivers} and {@code logDrivers}: drivers besides
 * the daemon's built-in ones it may name (plugins the machine owner installed for it);
 * {@code manifest}: where an operator changes this, for refusal messages.
 */
public record RepoAllowance(List<String> hostPaths, Set<String> volumeDrivers, Set<String> logDrivers, String manifest) {

    public RepoAllowance {
        hostPaths = hostPaths.stream().map(HostPathRules::normalize).toList();
        volumeDrivers = Set.copyOf(volumeDrivers);
        logDrivers = Set.copyOf(logDrivers);
    }

    /** Nothing beyond the built-in drivers and no host path: what a repo the manifest does not know gets. */
    public static RepoAllowance none(String manifest) {
        return new RepoAllowance(List.of(), Set.of(), Set.of(), manifest);
    }
}
