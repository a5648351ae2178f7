package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.bool;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.present;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.string;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.stringMap;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A container's {@code HostConfig}, as sent to {@code containers/create} or as stored by the daemon
 * ({@code GET /containers/{id}/json}). Everything that attaches hardware is refused here, except
 * CDI device requests, whose names are collected for the grant check.
 */
final class HostConfigRules {

    /** Where the HostConfig came from: a client's request, or the daemon's stored (and completed) copy. */
    enum Source {
        REQUEST,
        STORED
    }

    /** The only runtime that runs containers; "" means the daemon's default, which must be runc (docs/SECURITY.md). */
    static final Set<String> ALLOWED_RUNTIMES = Set.of("", "runc");

    private final MountRules mounts;

    HostConfigRules(MountRules mounts) {
        this.mounts = mounts;
    }

    void check(JsonObject hc, String path, Source source, Set<String> requested, HostPathRules.Reach reach) {
        if (bool(field(hc, path, "Privileged"), path + ".Privileged")) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_PRIVILEGED, null, RefusalMessages.privileged());
        }
        String runtime = string(field(hc, path, "Runtime"), path + ".Runtime");
        if (!ALLOWED_RUNTIMES.contains(runtime)) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_RUNTIME, runtime, RefusalMessages.runtime(runtime));
        }
        devices(field(hc, path, "Devices"), path + ".Devices");
        List<String> cgroupRules = strings(field(hc, path, "DeviceCgroupRules"), path + ".DeviceCgroupRules");
        if (!cgroupRules.isEmpty()) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_DEVICE_CGROUP, null, RefusalMessages.deviceCgroupRule(cgroupRules.get(0)));
        }
        DeviceRequestRules.check(field(hc, path, "DeviceRequests"), path + ".DeviceRequests", requested);
        // VolumeDriver also creates the anonymous volumes of -v /path and of the image's VOLUMEs.
        String volumeDriver = string(field(hc, path, "VolumeDriver"), path + ".VolumeDriver");
        mounts.volumeDriver(volumeDriver, path + ".VolumeDriver", reach);
        mounts.binds(field(hc, path, "Binds"), volumeDriver, path + ".Binds", reach);
        mounts.mounts(field(hc, path, "Mounts"), path + ".Mounts", false, reach);
        JsonObject logConfig = object(field(hc, path, "LogConfig"), path + ".LogConfig");
        if (logConfig != null) {
            String lp = path + ".LogConfig";
            logDriver(string(logConfig.field("Type", lp + ".Type"), lp + ".Type"), logConfig.field("Config", lp + ".Config"), lp, reach);
        }
        CapabilityRules.check(strings(field(hc, path, "CapAdd"), path + ".CapAdd"), path + ".CapAdd");
        securityOptions(strings(field(hc, path, "SecurityOpt"), path + ".SecurityOpt"));
        systemPaths(hc, path, source);
        namespaces(hc, path);
        annotations(stringMap(field(hc, path, "Annotations"), path + ".Annotations"));
    }

    /** The daemon's built-in log drivers (daemon/logdrivers_linux.go, plus "none"); "" is the daemon's default. */
    static final Set<String> BUILT_IN_LOG_DRIVERS = Set.of("", "json-file", "local", "journald", "syslog", "fluentd", "gelf",
            "awslogs", "splunk", "gcplogs", "none");

    /**
     * A log driver that is not built in is a plugin, allowed only when the manifest lists it for the
     * repo. A unix socket named in an {@code *-address} option ({@code unix://} or {@code unixgram://},
     * syslog and fluentd) is refused wherever it lies: the daemon dials it by path (after
     * percent-decoding it as a URL) whenever it starts the container's logger, at every start,
     * restart, its own boot and {@code docker logs} of a stopped container, so no check at create
     * holds; a pin would freeze the socket's inode, and a log server that re-creates its socket would
     * leave the container unable to start. Network addresses are the alternative.
     */
    static void logDriver(String driver, JsonValue options, String path, HostPathRules.Reach reach) {
        if (!BUILT_IN_LOG_DRIVERS.contains(driver) && !reach.allowance.logDrivers().contains(driver)) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_LOG_DRIVER, driver,
                    RefusalMessages.driverNotListed("log", driver, path + ".Type", "logDrivers", reach.repo, reach.allowance));
        }
        for (var option : stringMap(options, path + ".Config").entrySet()) {
            String value = option.getValue().trim();
            String lower = value.toLowerCase(Locale.ROOT);
            String key = option.getKey().toLowerCase(Locale.ROOT);
            if (key.contains("-tls-") || key.endsWith("-cert") || key.endsWith("-key") || key.endsWith("-capath")) {
                if (!value.isEmpty()) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_LOG_HOST_FILE, null,
                            RefusalMessages.logHostFile(option.getKey(), path + ".Config"));
                }
            }
            if (key.endsWith("-address") && lower.startsWith("unix")) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_LOG_SOCKET, null,
                        RefusalMessages.logSocket(option.getKey(), value, path + ".Config"));
            }
        }
    }

    private static JsonValue field(JsonObject hc, String path, String name) {
        return hc.fieldIn(path, name);
    }

    /** Any non-empty {@code Devices} is refused: the daemon treats every entry, CDI-looking or not, as a host path. */
    private static void devices(JsonValue devices, String path) {
        List<JsonValue> list = array(devices, path);
        if (list.isEmpty()) {
            return;
        }
        JsonObject first = object(list.get(0), path + "[0]");
        String onHost = first == null ? "" : string(first.field("PathOnHost", path + "[0].PathOnHost"), path + "[0].PathOnHost");
        if (CdiName.isValid(onHost)) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_CDI_IN_DEVICES, onHost, RefusalMessages.cdiNameInDevices(onHost));
        }
        throw PolicyRefusal.forbidden(RefusalMessages.RULE_RAW_DEVICE, onHost.isEmpty() ? null : onHost,
                RefusalMessages.rawDevice(onHost.isEmpty() ? "(empty path)" : onHost));
    }

    /**
     * {@code systempaths=unconfined} is turned by the CLI into empty {@code MaskedPaths} and
     * {@code ReadonlyPaths}; {@code writable-cgroups} (Docker 28) makes the cgroup file system writable.
     * {@code apparmor=unconfined}, {@code seccomp=unconfined} and {@code label=disable} are allowed:
     * they widen the syscall surface, but device nodes stay behind the device cgroup, and the
     * capabilities that get around it are refused (see docs/SECURITY.md).
     */
    private static void securityOptions(List<String> options) {
        for (String opt : options) {
            String key;
            String value;
            int eq = opt.indexOf('=');
            int colon = opt.indexOf(':');
            if (eq >= 0) {
                key = opt.substring(0, eq);
                value = opt.substring(eq + 1);
            } else if (colon >= 0) {
                key = opt.substring(0, colon);
                value = opt.substring(colon + 1);
            } else {
                continue;
            }
            key = key.trim().toLowerCase(Locale.ROOT);
            value = value.trim();
            if (key.equals("systempaths") && value.equalsIgnoreCase("unconfined")) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_SYSTEM_PATHS, null, RefusalMessages.systemPaths("SecurityOpt"));
            }
            if (key.equals("writable-cgroups") && !isGoFalse(value)) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_SECURITY_OPT, null, RefusalMessages.writableCgroups(opt));
            }
        }
    }

    /** Go's strconv.ParseBool false spellings; anything else is either true or rejected by the daemon. */
    private static boolean isGoFalse(String value) {
        return Set.of("0", "f", "F", "false", "FALSE", "False").contains(value);
    }

    /**
     * A request may not set MaskedPaths/ReadonlyPaths at all (JSON null keeps the daemon's
     * defaults; any list, empty or shorter, replaces them). A stored config carries the defaults the
     * daemon filled in, so there only an empty list (unmasked) is refused.
     */
    private static void systemPaths(JsonObject hc, String path, Source source) {
        for (String name : List.of("MaskedPaths", "ReadonlyPaths")) {
            JsonValue v = field(hc, path, name);
            List<String> paths = strings(v, path + "." + name);
            boolean refused = source == Source.REQUEST ? present(v) : present(v) && paths.isEmpty();
            if (refused) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_SYSTEM_PATHS, null, RefusalMessages.systemPaths(path + "." + name));
            }
        }
    }

    /**
     * {@code PidMode: host} is refused (host /proc/<pid>/root reaches /dev), and so is
     * {@code IpcMode: host} (the shared memory of the host and other repos). {@code container:<id>}
     * joins another container of the same repo, which passed the gate itself. Network, UTS, user
     * and cgroup namespaces of the host are allowed: they open no device.
     */
    private static void namespaces(JsonObject hc, String path) {
        if (string(field(hc, path, "PidMode"), path + ".PidMode").trim().equalsIgnoreCase("host")) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_NAMESPACE, null, RefusalMessages.pidHost());
        }
        if (string(field(hc, path, "IpcMode"), path + ".IpcMode").trim().equalsIgnoreCase("host")) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_NAMESPACE, null, RefusalMessages.ipcHost());
        }
    }

    /** CDI-aware runtimes inject devices named in {@code cdi.k8s.io/} annotations; only runc runs here, but refuse anyway. */
    private static void annotations(java.util.Map<String, String> annotations) {
        for (String key : annotations.keySet()) {
            if (key.toLowerCase(Locale.ROOT).contains("cdi.k8s.io/")) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_CDI_ANNOTATION, null, RefusalMessages.cdiAnnotation(key));
            }
        }
    }
}
