package io.rediacc.gpu.gate.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which host paths a container may not get through a bind or a volume. The comparison is lexical,
 * after Go's {@code path.Clean} (so {@code //dev}, {@code /dev/../dev} and {@code /dev/} are all
 * {@code /dev}): a source that is a protected root, lies under one, or is an ancestor of one (which
 * means {@code /}) is refused.
 * <ul>
 * <li>{@code /dev}: device nodes; the only door to a device is a granted CDI name.</li>
 * <li>{@code /proc}: {@code /proc/<pid>/root} and {@code /proc/self/root} reach the host's whole
 * file system, {@code /dev} included, and {@code /proc/bus/pci} is device configuration.</li>
 * <li>{@code /sys}: PCI resource and config files are device registers that the device cgroup does
 * not guard; a container only gets its own read-only sysfs.</li>
 * </ul>
 * Deployments add paths a repo must never reach (the repo daemon's own socket, the CDI spec
 * directories) through {@link GatePolicy#GatePolicy(int, java.util.Collection)}.
 */
final class HostPathRules {

    static final List<String> BUILT_IN_ROOTS = List.of("/dev", "/proc", "/sys");

    private final List<String> roots;

    HostPathRules(java.util.Collection<String> extraRoots) {
        Set<String> all = new LinkedHashSet<>(BUILT_IN_ROOTS);
        for (String extra : extraRoots) {
            String cleaned = GoPath.clean(extra);
            if (!cleaned.startsWith("/") || cleaned.equals("/")) {
                throw new IllegalArgumentException("protected host path must be absolute and not /: " + extra);
            }
            all.add(cleaned);
        }
        this.roots = List.copyOf(new ArrayList<>(all));
    }

    List<String> roots() {
        return roots;
    }

    /**
     * The protected root a host path reaches, if any. {@code hostPath} is cleaned first; a NUL ends
     * it (the kernel stops reading there). Relative paths are resolved against {@code /} only when
     * {@code relativeToRoot} (the daemon runs in {@code /}); otherwise they are not host paths.
     */
    Optional<String> reached(String hostPath, boolean relativeToRoot) {
        String p = hostPath;
        int nul = p.indexOf('\0');
        if (nul >= 0) {
            p = p.substring(0, nul);
        }
        if (!p.startsWith("/")) {
            if (!relativeToRoot) {
                return Optional.empty();
            }
            p = "/" + p;
        }
        p = GoPath.clean(p);
        if (p.equals("/")) {
            return Optional.of("/");
        }
        for (String root : roots) {
            if (p.equals(root) || p.startsWith(root + "/") || root.startsWith(p + "/")) {
                return Optional.of(root);
            }
        }
        return Optional.empty();
    }

    /** The cleaned form used in messages. */
    static String cleaned(String hostPath) {
        int nul = hostPath.indexOf('\0');
        return GoPath.clean(nul >= 0 ? hostPath.substring(0, nul) : hostPath);
    }
}
