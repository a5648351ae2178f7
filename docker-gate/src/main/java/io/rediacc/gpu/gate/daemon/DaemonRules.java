package io.rediacc.gpu.gate.daemon;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a repo daemon's configuration must be for the gate's decisions to hold: containers run
 * under runc (a runtime like nvidia's hands out GPUs from {@code NVIDIA_VISIBLE_DEVICES}, which
 * CUDA images set in their {@code ENV}, and from {@code cdi.k8s.io/*} annotations), and CDI names
 * resolve only from the product's spec directory (a spec elsewhere, e.g. {@code /var/run/cdi} or a
 * directory a repo can write, can add host mounts and hooks that run as root).
 */
public final class DaemonRules {

    private DaemonRules() {
    }

    /** Every misconfiguration of {@code info}, each with its daemon.json fix; empty when the daemon is fit. */
    public static List<String> problems(DaemonInfo info, List<String> expectedSpecDirs) {
        List<String> problems = new ArrayList<>();
        String runtime = info.defaultRuntime();
        if (runtime == null || runtime.isEmpty()) {
            problems.add("the daemon reports no DefaultRuntime; fix: set \"default-runtime\": \"runc\" in its daemon.json "
                    + "and restart it");
        } else if (!runtime.equals("runc")) {
            String why = runtime.toLowerCase(Locale.ROOT).contains("nvidia")
                    ? " (the NVIDIA runtime hands out GPUs from NVIDIA_VISIBLE_DEVICES, which CUDA images set)"
                    : " (only runc is known to attach no device beyond the granted CDI names)";
            problems.add("DefaultRuntime is \"" + runtime + "\", not runc" + why + "; fix: set \"default-runtime\": \"runc\" "
                    + "in that daemon's daemon.json (or remove --default-runtime) and restart it");
        }
        String runcPath = info.runtimePaths().get("runc");
        if (runcPath != null && runcPath.toLowerCase(Locale.ROOT).contains("nvidia")) {
            problems.add("the runtime named runc runs \"" + runcPath + "\"; fix: remove that runtime from daemon.json "
                    + "\"runtimes\" and restart the daemon");
        }
        List<String> dirs = info.cdiSpecDirs();
        if (dirs != null) {
            Set<String> reported = new LinkedHashSet<>(dirs.stream().map(DaemonRules::clean).toList());
            Set<String> expected = new LinkedHashSet<>(expectedSpecDirs.stream().map(DaemonRules::clean).toList());
            String fix = "; fix: set \"cdi-spec-dirs\": " + jsonList(expectedSpecDirs)
                    + " in that daemon's daemon.json (Docker 25.0-28.1 also need \"features\": {\"cdi\": true}) and restart it";
            if (reported.isEmpty()) {
                problems.add("CDI is disabled (CDISpecDirs is empty)" + fix);
            } else if (!reported.equals(expected)) {
                problems.add("CDISpecDirs is " + jsonList(dirs) + ", not exactly " + jsonList(expectedSpecDirs)
                        + " (a CDI spec in any other directory can add host mounts and root hooks to a granted name)" + fix);
            }
        }
        return problems;
    }

    /** Trailing slashes do not change a directory (Go's path.Clean would remove them too). */
    private static String clean(String dir) {
        String d = dir;
        while (d.length() > 1 && d.endsWith("/")) {
            d = d.substring(0, d.length() - 1);
        }
        return d;
    }

    private static String jsonList(List<String> values) {
        return "[" + String.join(", ", values.stream().map(v -> "\"" + v + "\"").toList()) + "]";
    }
}
