package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Request {@code Env} entries that select devices under runtimes other than runc: the NVIDIA
 * container runtime (and its hook) reads {@code NVIDIA_VISIBLE_DEVICES} and a few feature
 * selectors, AMD's reads {@code AMD_VISIBLE_DEVICES}, others theirs, and swarm's generic resources
 * arrive as {@code DOCKER_RESOURCE_*}. runc ignores all of them, and the gate verifies that runc is
 * every repo daemon's default runtime; refusing them as well means a daemon that is misconfigured
 * between two checks still gets no device request from a request's environment.
 *
 * <p>Every entry is judged, not only the one the daemon keeps (Go's env handling: the last
 * {@code KEY=} wins), so no order of duplicates gets one through. An entry without {@code =} only
 * unsets the image's value (moby's {@code ReplaceOrAppendEnvValues}) and is allowed. Keys are
 * compared ignoring ASCII case and surrounding blanks: the runtimes compare exactly, so this only
 * refuses more.
 */
final class EnvRules {

    /** The values of NVIDIA_VISIBLE_DEVICES that select nothing (the toolkit treats "" as void). */
    private static final Set<String> NVIDIA_NOTHING = Set.of("", "void", "none");

    /** Selectors of the NVIDIA toolkit besides NVIDIA_VISIBLE_DEVICES: each opens device nodes when set. */
    private static final Set<String> NVIDIA_FEATURE_SELECTORS = Set.of("NVIDIA_MIG_CONFIG_DEVICES",
            "NVIDIA_MIG_MONITOR_DEVICES", "NVIDIA_IMEX_CHANNELS", "NVIDIA_GDS", "NVIDIA_MOFED", "NVIDIA_NVSWITCH",
            "NVIDIA_GDRCOPY");

    /** Device selectors read by other vendors' container runtimes or OCI hooks. */
    private static final Set<String> OTHER_RUNTIME_SELECTORS = Set.of("AMD_VISIBLE_DEVICES", "HABANA_VISIBLE_DEVICES",
            "HABANA_VISIBLE_MODULES", "ASCEND_VISIBLE_DEVICES", "AWS_NEURON_VISIBLE_DEVICES");

    private EnvRules() {
    }

    /** Refuses the first device-selecting entry of {@code env} (a Go {@code []string}). */
    static void check(JsonValue env, String path, boolean exec) {
        List<String> entries = strings(env, path);
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            if (eq < 0) {
                continue; // "KEY" unsets the image's value; it selects nothing
            }
            String key = entry.substring(0, eq).strip().toUpperCase(Locale.ROOT);
            String value = entry.substring(eq + 1);
            if (selects(key, value)) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_DEVICE_ENV, null,
                        RefusalMessages.deviceEnv(entry, key, suggestions(key, value), exec));
            }
        }
    }

    private static boolean selects(String key, String value) {
        if (key.equals("NVIDIA_VISIBLE_DEVICES")) {
            return !NVIDIA_NOTHING.contains(value);
        }
        return NVIDIA_FEATURE_SELECTORS.contains(key)
                || (key.startsWith("NVIDIA_") && (key.endsWith("_DEVICES") || key.endsWith("_CHANNELS")))
                || OTHER_RUNTIME_SELECTORS.contains(key)
                || key.startsWith("DOCKER_RESOURCE_");
    }

    /** The CDI names that replace the entry, as for --gpus. */
    private static List<String> suggestions(String key, String value) {
        List<String> ids = Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        if (key.equals("NVIDIA_VISIBLE_DEVICES")) {
            boolean all = ids.isEmpty() || ids.contains("all");
            return DeviceSuggestions.forGpuRequest(0, all ? List.of() : ids);
        }
        if (key.equals("AMD_VISIBLE_DEVICES")) {
            if (ids.isEmpty() || ids.contains("all")) {
                return List.of("rediacc.io/amd=all");
            }
            return ids.stream().map(id -> id.chars().allMatch(Character::isDigit) ? "rediacc.io/amd=gpu" + id : "rediacc.io/amd=<gpu>")
                    .distinct().toList();
        }
        return List.of(DeviceSuggestions.ANY_GRANTED);
    }
}
