package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.cdi.CdiName;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CDI name to write instead of a refused spelling. The names follow what node-agent and
 * {@code nvidia-ctk} generate: {@code nvidia.com/gpu=<index>|<uuid>|all}, {@code rediacc.io/dri=renderD<N>}
 * (one per render node) and {@code rediacc.io/amd=gpu<N>|all} ({@code all} carries {@code /dev/kfd}).
 */
final class DeviceSuggestions {

    static final String ANY_GRANTED = "<vendor>/<class>=<device>";

    private static final Pattern NVIDIA_INDEX = Pattern.compile("/dev/nvidia(\\d+)");
    private static final Pattern RENDER_NODE = Pattern.compile("/dev/dri/(renderD\\d+)");

    private DeviceSuggestions() {
    }

    /** The granted-device name that replaces a host device path, if there is an obvious one. */
    static Optional<String> forHostPath(String hostPath) {
        String p = HostPathRules.cleaned(hostPath);
        Matcher m = NVIDIA_INDEX.matcher(p);
        if (m.matches()) {
            return Optional.of("nvidia.com/gpu=" + m.group(1));
        }
        if (p.equals("/dev/nvidiactl") || p.startsWith("/dev/nvidia-") || p.startsWith("/dev/nvidia-caps")) {
            return Optional.of("nvidia.com/gpu=all");
        }
        m = RENDER_NODE.matcher(p);
        if (m.matches()) {
            return Optional.of("rediacc.io/dri=" + m.group(1));
        }
        if (p.equals("/dev/dri") || p.startsWith("/dev/dri/")) {
            return Optional.of("rediacc.io/dri=renderD128");
        }
        if (p.equals("/dev/kfd")) {
            return Optional.of("rediacc.io/amd=all");
        }
        return Optional.empty();
    }

    /** What to write instead of {@code --gpus}/{@code deploy.resources.reservations.devices}: one name per GPU asked for. */
    static List<String> forGpuRequest(long count, List<String> deviceIds) {
        if (!deviceIds.isEmpty()) {
            return deviceIds.stream().map(id -> CdiName.isValid("nvidia.com/gpu=" + id) ? "nvidia.com/gpu=" + id : "nvidia.com/gpu=<index>").distinct().toList();
        }
        if (count > 0 && count < 16) {
            return java.util.stream.LongStream.range(0, count).mapToObj(i -> "nvidia.com/gpu=" + i).toList();
        }
        return List.of("nvidia.com/gpu=all");
    }

    /** {@code --device a --device b}. */
    static String cliFlags(List<String> names) {
        return String.join(" ", names.stream().map(n -> "--device " + n).toList());
    }

    /** {@code devices: [a, b]}. */
    static String composeDevices(List<String> names) {
        return "devices: [" + String.join(", ", names) + "]";
    }
}
