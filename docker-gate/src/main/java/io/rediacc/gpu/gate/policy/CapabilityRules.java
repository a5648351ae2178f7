package io.rediacc.gpu.gate.policy;

import java.util.List;
import java.util.Map;

/**
 * Added capabilities ({@code --cap-add}, swarm {@code CapabilityAdd}, plugin {@code capabilities}).
 * The device cgroup is what keeps ungranted device nodes closed, even for {@code -v /dev:/dev} or a
 * {@code mknod} (MKNOD is in Docker's default set for that reason: a node made inside the container
 * still cannot be opened). So the refused capabilities are those that get around the device cgroup
 * or reach hardware without a device node; the rest (NET_ADMIN, SYS_PTRACE, IPC_LOCK, SYS_NICE...,
 * common for GPU work) are allowed.
 */
final class CapabilityRules {

    static final Map<String, String> REFUSED = Map.of(
            "ALL", "it includes CAP_SYS_ADMIN, CAP_SYS_RAWIO and CAP_SYS_MODULE",
            "CAP_SYS_ADMIN", "it can mount file systems and reconfigure cgroups, which gets around the device cgroup",
            "CAP_SYS_RAWIO", "it opens raw I/O ports and physical memory, hardware access without a device node",
            "CAP_SYS_MODULE", "it loads kernel modules, which run with every device in reach",
            "CAP_BPF", "it loads BPF programs, the mechanism cgroup v2 uses to decide device access",
            "CAP_DAC_READ_SEARCH", "open_by_handle_at reaches any host file outside the container's mounts, "
                    + "CDI spec files included");

    private CapabilityRules() {
    }

    /**
     * The daemon's normalisation: Go's {@code strings.ToUpper} (per rune, so {@code "ſys_admin"} is
     * {@code SYS_ADMIN}), then a {@code CAP_} prefix unless the value is {@code ALL}.
     */
    static String normalize(String capability) {
        String c = GoJsonFolding.goToUpper(capability.trim());
        if (c.equals("ALL") || c.startsWith("CAP_")) {
            return c;
        }
        return "CAP_" + c;
    }

    static void check(List<String> capabilities, String path) {
        for (String capability : capabilities) {
            String normalized = normalize(capability);
            String reason = REFUSED.get(normalized);
            if (reason != null) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_CAPABILITY, null,
                        RefusalMessages.capability(normalized, reason, path));
            }
        }
    }
}
