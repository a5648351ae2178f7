package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.string;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.stringMap;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Binds, mounts and local volumes: no host path that reaches a protected root ({@link HostPathRules}),
 * and no local volume that makes the daemon mount a device or a kernel file system on the host.
 */
final class MountRules {

    /**
     * Local-driver volume types that cannot expose devices. Block-device file systems need a
     * {@code device} under /dev (refused anyway); sysfs, proc, devtmpfs, debugfs, configfs, bpf,
     * cgroup, binfmt_misc... would hand the container kernel or device interfaces, mounted by the daemon.
     */
    static final Set<String> LOCAL_VOLUME_TYPES = Set.of("", "none", "tmpfs", "nfs", "nfs4", "cifs", "smb3");

    private final HostPathRules hostPaths;

    MountRules(HostPathRules hostPaths) {
        this.hostPaths = hostPaths;
    }

    /**
     * {@code HostConfig.Binds}: {@code source:target[:mode]}. The daemon's Linux parser splits at
     * ':'; with two or more parts the first is the source, a host path when absolute, else a
     * volume name. One part is only a container path (an anonymous volume).
     */
    void binds(JsonValue binds, String path) {
        List<String> specs = strings(binds, path);
        for (String spec : specs) {
            int colon = spec.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String source = spec.substring(0, colon);
            Optional<String> root = hostPaths.reached(source, false);
            if (root.isPresent()) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, HostPathRules.cleaned(source),
                        RefusalMessages.hostPath("bind of host path", path + " \"" + spec + "\"", source, root.get()));
            }
        }
    }

    /** {@code HostConfig.Mounts} or a swarm {@code ContainerSpec.Mounts}: {@code mount.Mount} objects. */
    void mounts(JsonValue mounts, String path) {
        List<JsonValue> list = array(mounts, path);
        for (int i = 0; i < list.size(); i++) {
            String at = path + "[" + i + "]";
            JsonObject mount = object(list.get(i), at);
            if (mount == null) {
                continue;
            }
            String type = string(mount.field("Type", at + ".Type"), at + ".Type");
            String source = string(mount.field("Source", at + ".Source"), at + ".Source");
            // Whatever the type, an absolute source that reaches a protected root is refused: only
            // bind uses it as a host path today, and refusing it elsewhere costs nothing.
            Optional<String> root = hostPaths.reached(source, false);
            if (root.isPresent()) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, HostPathRules.cleaned(source),
                        RefusalMessages.hostPath("mount of host path", at + " (type " + (type.isEmpty() ? "unset" : type) + ")", source, root.get()));
            }
            JsonObject volumeOptions = object(mount.field("VolumeOptions", at + ".VolumeOptions"), at + ".VolumeOptions");
            if (volumeOptions != null) {
                String vpath = at + ".VolumeOptions.DriverConfig";
                JsonObject driverConfig = object(volumeOptions.field("DriverConfig", vpath), vpath);
                if (driverConfig != null) {
                    String driver = string(driverConfig.field("Name", vpath + ".Name"), vpath + ".Name");
                    volumeDriverOptions(driver, driverConfig.field("Options", vpath + ".Options"), vpath + ".Options");
                }
            }
        }
    }

    /**
     * Driver options of a volume ({@code volumes/create} {@code DriverOpts} or an inline mount's
     * {@code DriverConfig.Options}). The local driver mounts {@code device} with {@code type} and
     * {@code o} on the host as root. A {@code device} reaching a protected root is refused for
     * every driver; for the local driver (the default) only types that cannot expose devices pass.
     */
    void volumeDriverOptions(String driver, JsonValue options, String path) {
        Map<String, String> opts = stringMap(options, path);
        boolean local = driver.isEmpty() || driver.equalsIgnoreCase("local");
        for (Map.Entry<String, String> option : opts.entrySet()) {
            String key = option.getKey().trim().toLowerCase(Locale.ROOT);
            String value = option.getValue();
            if (key.equals("device")) {
                // The local driver hands device to mount(2) as is; a relative one resolves against the daemon's "/".
                Optional<String> root = hostPaths.reached(value, true);
                if (root.isPresent()) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, HostPathRules.cleaned(value),
                            RefusalMessages.hostPath("volume device", path + " device=" + value, value, root.get()));
                }
            } else if (local && key.equals("type")) {
                if (!LOCAL_VOLUME_TYPES.contains(value)) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, value, RefusalMessages.volumeType(value));
                }
            }
        }
    }
}
