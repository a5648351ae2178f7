package io.rediacc.gpu.agent.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The machine as the agent sees it: every host path it reads or writes ({@code /sys}, {@code /dev},
 * {@code /etc/cdi}, ...) is resolved under one root, {@code /} on a real machine and a fixture
 * directory in tests and simulations. Paths that leave the machine (inventory, spec files, device
 * nodes) are always host paths, never root-prefixed.
 */
public record HostRoot(Path root) {

    public static final String CDI_DIR = "/etc/cdi";
    public static final String NVIDIA_SPEC = "/etc/cdi/nvidia.yaml";
    public static final String DRI_SPEC = "/etc/cdi/rediacc.io-dri.yaml";
    public static final String AMD_SPEC = "/etc/cdi/rediacc.io-amd.yaml";
    public static final String INVENTORY = "/etc/rediacc/gpu/inventory.json";
    public static final String REPOS_MANIFEST = "/etc/rediacc/gate/repos.yaml";
    /** node-agent's environment file, which both units read (deploy/systemd). */
    public static final String AGENT_ENV = "/etc/rediacc/gpu/node-agent.env";
    public static final String CDI_REFRESH_DROP_IN = "/etc/systemd/system/nvidia-cdi-refresh.service.d/rediacc.conf";
    public static final String CDI_REFRESH_ENV_FILE = "/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env";
    public static final String PERSISTENCED_SOCKET = "/run/nvidia-persistenced/socket";
    public static final String DXG = "/dev/dxg";
    public static final String KFD = "/dev/kfd";
    public static final String DRI_DIR = "/dev/dri";
    public static final String DRM_CLASS = "/sys/class/drm";
    public static final String KFD_TOPOLOGY_NODES = "/sys/class/kfd/kfd/topology/nodes";

    public HostRoot {
        root = root.toAbsolutePath().normalize();
    }

    public static HostRoot of(String root) {
        return new HostRoot(Path.of(root));
    }

    /** True when this is the real machine's root. */
    public boolean isSystemRoot() {
        return root.getParent() == null;
    }

    /** Where host path {@code hostPath} (absolute, e.g. {@code /etc/cdi}) lies under this root. */
    public Path path(String hostPath) {
        if (!hostPath.startsWith("/")) {
            throw new IllegalArgumentException("host path must be absolute: " + hostPath);
        }
        return root.resolve(hostPath.substring(1));
    }

    /** The host path of a file under this root ({@code <root>/etc/cdi/x.yaml} → {@code /etc/cdi/x.yaml}). */
    public String hostPath(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        if (!abs.startsWith(root)) {
            return abs.toString();
        }
        return "/" + root.relativize(abs).toString().replace('\\', '/');
    }

    /** Rewrites root-prefixed paths inside a message (e.g. a parser error) to host paths. */
    public String toHostPaths(String message) {
        if (isSystemRoot() || message == null) {
            return message;
        }
        return message.replace(root.toString() + "/", "/");
    }

    /** Whether the host path exists; in a fixture root a device node may be a plain file. */
    public boolean exists(String hostPath) {
        return Files.exists(path(hostPath));
    }

    /** The file's text with surrounding white space removed, when it exists and can be read. */
    public Optional<String> readTrimmed(String hostPath) {
        return readTrimmed(path(hostPath));
    }

    public static Optional<String> readTrimmed(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
