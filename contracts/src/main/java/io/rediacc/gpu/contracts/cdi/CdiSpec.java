package io.rediacc.gpu.contracts.cdi;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One CDI spec file: its kind ({@code vendor/class}), version, and devices with their container
 * edits. Built by {@link CdiSpecParser}, which refuses unknown fields as the reference loader does.
 *
 * @param source path or name of the file it came from
 * @param digest {@code sha256:<hex>} of the file's bytes
 */
public record CdiSpec(String source, String digest, String cdiVersion, String kind, Map<String, String> annotations,
                      List<Device> devices, ContainerEdits containerEdits) {

    /** Every {@code cdiVersion} the loader accepts, oldest first. */
    public static final List<String> VERSIONS = List.of("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0",
            "0.7.0", "0.8.0", "1.0.0", "1.1.0");

    public CdiSpec {
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        devices = List.copyOf(devices);
        containerEdits = containerEdits == null ? ContainerEdits.EMPTY : containerEdits;
    }

    /** The qualified names of this spec's devices, in file order. */
    public List<CdiName> qualifiedNames() {
        int slash = kind.indexOf('/');
        List<CdiName> names = new ArrayList<>(devices.size());
        for (Device d : devices) {
            names.add(new CdiName(kind.substring(0, slash), kind.substring(slash + 1), d.name()));
        }
        return names;
    }

    /**
     * The lowest {@code cdiVersion} that can express this spec (the reference implementation's
     * minimum-version rules, for the features our generators use).
     */
    public static String minimumVersion(List<Device> devices, ContainerEdits common, boolean annotations) {
        int min = VERSIONS.indexOf("0.3.0");
        for (Device d : devices) {
            if (Character.isDigit(d.name().charAt(0))) {
                min = Math.max(min, VERSIONS.indexOf("0.5.0"));
            }
            if (!d.annotations().isEmpty()) {
                min = Math.max(min, VERSIONS.indexOf("0.6.0"));
            }
            min = Math.max(min, d.containerEdits().minimumVersionIndex());
        }
        if (annotations) {
            min = Math.max(min, VERSIONS.indexOf("0.6.0"));
        }
        if (common != null) {
            min = Math.max(min, common.minimumVersionIndex());
        }
        return VERSIONS.get(min);
    }

    /** One device of a spec. */
    public record Device(String name, Map<String, String> annotations, ContainerEdits containerEdits) {
        public Device {
            annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
            containerEdits = containerEdits == null ? ContainerEdits.EMPTY : containerEdits;
        }
    }

    /** The edits a device (or the whole spec) makes to a container. */
    public record ContainerEdits(List<String> env, List<DeviceNode> deviceNodes, List<Hook> hooks,
                                 List<Mount> mounts, Map<String, Object> intelRdt, List<Long> additionalGids,
                                 List<Map<String, Object>> netDevices) {

        public static final ContainerEdits EMPTY = new ContainerEdits(null, null, null, null, null, null, null);

        public ContainerEdits {
            env = env == null ? List.of() : List.copyOf(env);
            deviceNodes = deviceNodes == null ? List.of() : List.copyOf(deviceNodes);
            hooks = hooks == null ? List.of() : List.copyOf(hooks);
            mounts = mounts == null ? List.of() : List.copyOf(mounts);
            intelRdt = intelRdt == null ? Map.of() : Map.copyOf(intelRdt);
            additionalGids = additionalGids == null ? List.of() : List.copyOf(additionalGids);
            netDevices = netDevices == null ? List.of() : List.copyOf(netDevices);
        }

        public static ContainerEdits ofDeviceNodes(List<DeviceNode> nodes) {
            return new ContainerEdits(null, nodes, null, null, null, null, null);
        }

        /** Container paths of the device nodes, in order, without repeats. */
        public Set<String> deviceNodePaths() {
            Set<String> paths = new LinkedHashSet<>();
            for (DeviceNode n : deviceNodes) {
                paths.add(n.path());
            }
            return paths;
        }

        int minimumVersionIndex() {
            int min = VERSIONS.indexOf("0.3.0");
            for (DeviceNode n : deviceNodes) {
                if (n.hostPath() != null) {
                    min = Math.max(min, VERSIONS.indexOf("0.5.0"));
                }
            }
            if (!intelRdt.isEmpty() || !additionalGids.isEmpty()) {
                min = Math.max(min, VERSIONS.indexOf("0.7.0"));
            }
            for (Mount m : mounts) {
                if (m.type() != null) {
                    min = Math.max(min, VERSIONS.indexOf("0.4.0"));
                }
            }
            if (!netDevices.isEmpty()) {
                min = Math.max(min, VERSIONS.indexOf("1.0.0"));
            }
            return min;
        }
    }

    /** A device node: {@code path} in the container, {@code hostPath} on the host when different. */
    public record DeviceNode(String path, String hostPath, String type, Long major, Long minor, Long fileMode,
                             String permissions, Long uid, Long gid) {
        public static DeviceNode of(String path) {
            return new DeviceNode(path, null, null, null, null, null, null, null, null);
        }

        /** The node as seen on the host. */
        public String effectiveHostPath() {
            return hostPath != null ? hostPath : path;
        }
    }

    /** An OCI hook run at {@code hookName} (createContainer, startContainer, …). */
    public record Hook(String hookName, String path, List<String> args, List<String> env, Long timeout) {
        public Hook {
            args = args == null ? List.of() : List.copyOf(args);
            env = env == null ? List.of() : List.copyOf(env);
        }
    }

    /** A mount of {@code hostPath} at {@code containerPath}. */
    public record Mount(String hostPath, String containerPath, List<String> options, String type) {
        public Mount {
            options = options == null ? List.of() : List.copyOf(options);
        }
    }
}
