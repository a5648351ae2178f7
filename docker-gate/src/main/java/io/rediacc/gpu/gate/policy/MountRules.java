package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.string;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.stringMap;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Binds, mounts, volumes and their drivers, judged the way the daemon will act on them
 * (moby {@code daemon/volume/mounts/linux_parser.go}, {@code daemon/volume/local/local_unix.go}):
 * a host path only under the repo's {@code hostPaths} and outside every protected path
 * ({@link HostPathRules}); a local volume without options (or only {@code size}), a tmpfs one, or
 * a bind of an allowed host path; named volumes inspected on the daemon before they are used
 * (one created outside the gate may be bind-backed); no volume driver besides {@code local}
 * unless the manifest lists it for the repo.
 */
final class MountRules {

    /** moby's {@code names.RestrictedNamePattern}, which the local driver requires of a volume name (two characters at least). */
    static final Pattern VOLUME_NAME = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9_.-]+");

    /** The options the local driver accepts (case-sensitive); it refuses any other key. */
    static final Set<String> LOCAL_OPTION_KEYS = Set.of("type", "o", "device", "size");

    /** The {@code o} flags that make the local driver bind-mount {@code device} (moby/sys/mount). */
    static final Set<String> BIND_FLAGS = Set.of("bind", "rbind");

    /** Types a local bind may carry: the kernel ignores the type of a bind, but cifs and nfs make the daemon rewrite the device first. */
    static final Set<String> BIND_TYPES = Set.of("none", "bind");

    /** Most named volumes one request may use: each is one request to the daemon before it is decided. */
    static final int MAX_VOLUMES = 64;

    /**
     * {@code HostConfig.Binds}: the daemon splits each at ':' into at most 4 parts; with two or
     * three, the first is the source: a host path when absolute, else a volume name (of
     * {@code HostConfig.VolumeDriver}). One part is only a container path (an anonymous volume).
     */
    void binds(JsonValue binds, String volumeDriver, String path, HostPathRules.Reach reach) {
        List<String> specs = strings(binds, path);
        for (String spec : specs) {
            String[] parts = spec.split(":", 4);
            if (parts.length < 2) {
                continue;
            }
            String source = parts[0];
            String where = path + " \"" + spec + "\"";
            if (source.startsWith("/")) {
                if (reach.pinDirectory != null) {
                    throw unpinned(source, where);
                }
                reach.hostPath(source, RefusalMessages.RULE_HOST_PATH, "bind of host path", where);
            } else {
                volumeName(source, where, reach);
                if (isLocal(volumeDriver)) {
                    reach.volumesToInspect.add(source);
                }
            }
        }
    }

    /**
     * {@code HostConfig.Mounts} or a swarm {@code ContainerSpec.Mounts} ({@code mount.Mount}), or —
     * {@code stored} — a stored container's resolved {@code Mounts} ({@code MountPoint}: a volume's
     * source there is its directory under the daemon's data root, not a host path of the request).
     */
    void mounts(JsonValue mounts, String path, boolean stored, HostPathRules.Reach reach) {
        List<JsonValue> list = array(mounts, path);
        for (int i = 0; i < list.size(); i++) {
            String at = path + "[" + i + "]";
            JsonObject mount = object(list.get(i), at);
            if (mount == null) {
                continue;
            }
            String type = string(mount.field("Type", at + ".Type"), at + ".Type");
            String source = string(mount.field("Source", at + ".Source"), at + ".Source");
            String where = at + " (type " + (type.isEmpty() ? "unset" : type) + ")";
            switch (type) {
                case "bind" -> {
                    if (reach.pinDirectory == null) {
                        reach.hostPath(source, RefusalMessages.RULE_HOST_PATH, "mount of host path", where);
                    } else if (!HostPathRules.within(HostPathRules.normalize(source), reach.pinDirectory)) {
                        throw unpinned(source, where);
                    }
                }
                case "volume" -> {
                    if (stored) {
                        String name = string(mount.field("Name", at + ".Name"), at + ".Name");
                        String driver = string(mount.field("Driver", at + ".Driver"), at + ".Driver");
                        volumeDriver(driver, at + ".Driver", reach);
                        if (!name.isEmpty() && isLocal(driver)) {
                            volumeName(name, where, reach);
                            reach.volumesToInspect.add(name);
                        }
                        continue;
                    }
                    JsonObject volumeOptions = object(mount.field("VolumeOptions", at + ".VolumeOptions"), at + ".VolumeOptions");
                    String driver = "";
                    if (volumeOptions != null) {
                        String vpath = at + ".VolumeOptions.DriverConfig";
                        JsonObject driverConfig = object(volumeOptions.field("DriverConfig", vpath), vpath);
                        if (driverConfig != null) {
                            driver = string(driverConfig.field("Name", vpath + ".Name"), vpath + ".Name");
                            volumeDriverOptions(driver, driverConfig.field("Options", vpath + ".Options"), vpath + ".Options", reach);
                        }
                    }
                    volumeDriver(driver, at + ".VolumeOptions.DriverConfig.Name", reach);
                    if (!source.isEmpty()) {
                        volumeName(source, where, reach);
                        if (isLocal(driver)) {
                            reach.volumesToInspect.add(source);
                        }
                    }
                }
                case "tmpfs", "image" -> {
                    // tmpfs: a new file system (the daemon refuses a source); image: an image's content.
                    if (type.equals("tmpfs") && !source.isEmpty()) {
                        reach.hostPath(source, RefusalMessages.RULE_HOST_PATH, "mount of host path", where);
                    }
                }
                default -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, null, RefusalMessages.mountType(where, type));
            }
        }
    }

    /**
     * Driver options of a volume ({@code volumes/create} {@code DriverOpts}, an inline mount's
     * {@code DriverConfig.Options}, or an existing volume's {@code Options}). For the local driver
     * (the default): no options, only {@code size}, {@code type=tmpfs}, or a bind
     * ({@code o=bind}/{@code rbind}) of a host path the repo may reach; network file systems
     * (resolved and mounted from the host's namespace; cifs device URLs are unescaped and rebuilt
     * by the daemon), block devices and overlay reach the host and are refused. Another driver's
     * options are its own: the driver is allowed only when the manifest lists it for the repo.
     */
    void volumeDriverOptions(String driver, JsonValue options, String path, HostPathRules.Reach reach) {
        Map<String, String> opts = stringMap(options, path);
        if (!isLocal(driver) || opts.isEmpty()) {
            return;
        }
        for (String key : opts.keySet()) {
            if (!LOCAL_OPTION_KEYS.contains(key)) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, null, RefusalMessages.volumeOptionKey(path, key));
            }
        }
        String type = opts.get("type");
        String device = opts.get("device");
        String o = opts.get("o");
        if (type == null && device == null && o == null) {
            return; // size only: a quota on the volume's own directory
        }
        boolean bind = o != null && List.of(o.split(",", -1)).stream().anyMatch(BIND_FLAGS::contains);
        if (bind) {
            if (type == null || !BIND_TYPES.contains(type)) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, type, RefusalMessages.volumeBindType(path, type));
            }
            if (reach.pinDirectory != null) {
                // An existing volume: its device must be a pin the gate made for this repo.
                if (device == null || !device.equals(HostPathRules.normalize(device))
                        || !HostPathRules.within(device, reach.pinDirectory)) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, device, RefusalText.of(path + " device=" + device
                            + " is a bind of a host path by path, made before the gate pinned bind sources: the daemon mounts that"
                            + " path again at every use, following whatever symlink is there then", "remove the volume (docker volume rm)"
                            + " and create it again through the gate, which pins the path"));
                }
                return;
            }
            HostPathRules.requireClean(device, "local volume bind of", path + " device=" + device);
            reach.hostPath(device == null ? "" : device, RefusalMessages.RULE_VOLUME_OPTIONS, "local volume bind of",
                    path + " device=" + device);
            return;
        }
        if ("tmpfs".equals(type)) {
            return; // a new tmpfs: its device is only a label
        }
        throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, device != null ? device : type,
                RefusalMessages.volumeType(path, type, reach.repo, reach.allowance));
    }

    /** A stored bind the daemon mounts by path: the container was made before pinning (or outside the gate). */
    private static PolicyRefusal unpinned(String source, String where) {
        return PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, source, RefusalText.of("bind of host path " + source + " in " + where
                + " was not pinned by the gate (the container was created before the gate pinned bind sources, or outside it):"
                + " the daemon mounts it by path at every start, restart and docker cp, following whatever symlink is there then",
                "recreate the container through the gate (docker rm it, then docker run/create it again, or"
                + " docker compose up -d --force-recreate), which pins its binds"));
    }

    /** A volume driver other than the local one is a plugin: allowed only when the manifest lists it for the repo. */
    void volumeDriver(String driver, String path, HostPathRules.Reach reach) {
        if (!isLocal(driver) && !reach.allowance.volumeDrivers().contains(driver)) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_DRIVER, driver,
                    RefusalMessages.driverNotListed("volume", driver, path, "volumeDrivers", reach.repo, reach.allowance));
        }
    }

    /** The names the local driver accepts; anything else would be a path or a plugin's business. */
    static void volumeName(String name, String where, HostPathRules.Reach reach) {
        if (!VOLUME_NAME.matcher(name).matches()) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, name, RefusalMessages.volumeName(name, where));
        }
        if (reach.volumesToInspect.size() >= MAX_VOLUMES && !reach.volumesToInspect.contains(name)) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_VOLUME_OPTIONS, null, RefusalText.of(
                    "a request may use at most " + MAX_VOLUMES + " named volumes (each is inspected on the daemon first)", "split it"));
        }
    }

    static boolean isLocal(String driver) {
        return driver.isEmpty() || driver.equals("local");
    }
}
