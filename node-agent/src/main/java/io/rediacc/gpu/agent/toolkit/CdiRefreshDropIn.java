package io.rediacc.gpu.agent.toolkit;

import io.rediacc.gpu.agent.host.HostRoot;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The systemd drop-in that points the toolkit's {@code nvidia-cdi-refresh.service} at
 * {@code /etc/cdi/nvidia.yaml}. The unit runs {@code nvidia-ctk cdi generate}, whose output defaults
 * to {@code NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/nvidia.yaml} — a directory repo daemons do
 * not read — so after a driver upgrade the refreshed spec would land where no grant can use it.
 */
public final class CdiRefreshDropIn {

    public static final String OUTPUT_VARIABLE = "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH";
    public static final String SERVICE = "nvidia-cdi-refresh.service";
    public static final String PATH_UNIT = "nvidia-cdi-refresh.path";

    private static final Pattern ENV_LINE = Pattern.compile("^\\s*" + OUTPUT_VARIABLE + "\\s*=\\s*\"?([^\"\\s]*)\"?\\s*$",
            Pattern.MULTILINE);

    private CdiRefreshDropIn() {
    }

    /**
     * The drop-in for {@code nvidia-ctk} at {@code ctk}. {@code Environment=} alone is not enough:
     * systemd lets the unit's {@code EnvironmentFile=} ({@code nvidia-cdi-refresh.env}) override it,
     * so an old or hand-edited env file would silently send the spec back to {@code /var/run/cdi}.
     * The command line's {@code --output} wins over the variable, whatever the env file says.
     */
    public static byte[] content(String ctk) {
        return ("""
                # Written by rediacc node-agent setup. Repo daemons read CDI specs from /etc/cdi only, so the
                # toolkit's refresh (run on driver and toolkit changes) must write NVIDIA's spec there, not to
                # the default /var/run/cdi/nvidia.yaml. --output on the command line wins over
                # nvidia-cdi-refresh.env. Removed by setup when it no longer manages that spec.
                [Service]
                Environment=%s=%s
                ExecStart=
                ExecStart=%s cdi generate --output=%s
                """.formatted(OUTPUT_VARIABLE, HostRoot.NVIDIA_SPEC, ctk, HostRoot.NVIDIA_SPEC)).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The unit reads {@code /etc/nvidia-container-toolkit/nvidia-cdi-refresh.env} after its
     * {@code Environment=} lines, so an operator's value there wins over the drop-in; returns it
     * when it points somewhere else.
     */
    public static Optional<String> conflictingEnvironmentFile(HostRoot host) {
        return host.readTrimmed(HostRoot.CDI_REFRESH_ENV_FILE).flatMap(text -> {
            Matcher m = ENV_LINE.matcher(text);
            String last = null;
            while (m.find()) {
                last = m.group(1);
            }
            return Optional.ofNullable(last).filter(v -> !v.equals(HostRoot.NVIDIA_SPEC));
        });
    }
}
