package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.events.DaemonStatus;
import java.util.List;

/**
 * Every refusal the policy produces: a stable rule id and the sentence the docker CLI prints. A
 * refused spelling always says what to write instead. The {@code RULE_*} constants are every rule id the gate
 * can emit ({@link #ruleIds()}); docker-gate/POLICY.md explains them and docs/EVENTS.md lists them for consumers
 * of {@code gpu.gate-decisions.v1} (RuleIdsDocumentedTest keeps both honest).
 */
public final class RefusalMessages {

    // Request shape (400 / 413)
    public static final String RULE_REQUEST_TARGET = "request-target";
    public static final String RULE_FRAMING = "ambiguous-framing";
    public static final String RULE_UNKNOWN_ROUTE = "unknown-route";
    public static final String RULE_API_VERSION = "api-version";
    public static final String RULE_API_VERSIONS_UNKNOWN = "api-versions-unknown";
    public static final String RULE_HTTP_VERSION = "http-version";
    public static final String RULE_TOO_LARGE = "body-too-large";
    public static final String RULE_UNREADABLE = "body-not-json";
    public static final String RULE_DUPLICATE_KEY = "body-duplicate-key";
    public static final String RULE_FIELD_TYPE = "body-field-type";
    public static final String RULE_TOP_LEVEL_HOST_CONFIG = "top-level-host-config";
    public static final String RULE_START_BODY = "start-with-body";
    public static final String RULE_CDI_INVALID = "cdi-name-invalid";
    // Grants (403 / 503)
    public static final String RULE_NOT_GRANTED = "cdi-not-granted";
    public static final String RULE_GRANTS_NOT_LOADED = "grants-not-loaded";
    public static final String RULE_CDI_ORPHANED = "cdi-orphaned";
    // Hardware paths (403)
    public static final String RULE_GPUS = "gpus-request";
    public static final String RULE_DEVICE_DRIVER = "device-driver";
    public static final String RULE_CDI_SHAPE = "cdi-request-shape";
    public static final String RULE_RUNTIME = "runtime";
    public static final String RULE_RAW_DEVICE = "raw-device";
    public static final String RULE_CDI_IN_DEVICES = "cdi-name-in-devices";
    public static final String RULE_DEVICE_CGROUP = "device-cgroup-rule";
    public static final String RULE_PRIVILEGED = "privileged";
    public static final String RULE_HOST_PATH = "host-path";
    public static final String RULE_VOLUME_OPTIONS = "volume-options";
    public static final String RULE_CAPABILITY = "capability";
    public static final String RULE_HOST_NAMESPACE = "host-namespace";
    public static final String RULE_SYSTEM_PATHS = "system-paths";
    public static final String RULE_SECURITY_OPT = "security-opt";
    public static final String RULE_CDI_ANNOTATION = "cdi-annotation";
    public static final String RULE_EXEC_PRIVILEGED = "exec-privileged";
    public static final String RULE_UPDATE_DEVICES = "update-devices";
    public static final String RULE_UPDATE_FIELD = "update-field";
    public static final String RULE_BUILDKIT = "buildkit";
    public static final String RULE_DEVICE_ENV = "device-env";
    public static final String RULE_DAEMON_MISCONFIGURED = "daemon-misconfigured";
    public static final String RULE_DAEMON_UNVERIFIED = "daemon-unverified";
    public static final String RULE_SWARM = "swarm-membership";
    public static final String RULE_SERVICE_RESOURCES = "service-generic-resources";
    public static final String RULE_SERVICE_PLUGIN = "service-plugin";
    public static final String RULE_PLUGIN_MANAGEMENT = "plugin-management";
    public static final String RULE_HOST_PATH_NOT_ALLOWED = "host-path-not-allowed";
    public static final String RULE_VOLUME_DRIVER = "volume-driver";
    public static final String RULE_LOG_DRIVER = "log-driver";
    public static final String RULE_LOG_HOST_FILE = "log-option-host-file";
    public static final String RULE_LOG_SOCKET = "log-socket";
    public static final String RULE_PATH_NOT_CLEAN = "host-path-not-clean";
    public static final String RULE_VOLUME_UNREADABLE = "volume-unreadable";
    public static final String RULE_STORED_UNREADABLE = "stored-config-unreadable";
    // Uploads into containers (403 / 400)
    public static final String RULE_ARCHIVE_DEVICE = "archive-device-entry";
    public static final String RULE_ARCHIVE_FORMAT = "archive-format";
    // The gate itself (400 / 403)
    public static final String RULE_INCOMPLETE_BODY = "incomplete-body";
    public static final String RULE_INSPECTION_FAILED = "inspection-failed";
    public static final String RULE_GATE_ERROR = "gate-error";

    static final String MACHINE_PLACEHOLDER = "rdc machine gpu list <machine>";

    private RefusalMessages() {
    }

    /** Every rule id a refusal can carry: the {@code RULE_*} constants above, in declaration order. */
    public static List<String> ruleIds() {
        List<String> ids = new java.util.ArrayList<>();
        for (java.lang.reflect.Field f : RefusalMessages.class.getDeclaredFields()) {
            if (f.getName().startsWith("RULE_") && f.getType() == String.class) {
                try {
                    ids.add((String) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return List.copyOf(ids);
    }

    static RefusalText notGranted(String device, RepoIdentity repo) {
        String fix = "rdc repo gpu grant " + repo.name() + "@" + repo.machine() + " --device " + device;
        return new RefusalText("device " + device + " is not granted to repo " + repo.name() + " on machine " + repo.machine()
                + "; an operator can grant it with: " + fix, fix);
    }

    static RefusalText orphaned(String device, RepoIdentity repo) {
        String fix = "rdc machine setup " + repo.machine() + "; or free the grant: rdc repo gpu revoke "
                + repo.name() + "@" + repo.machine() + " --device " + device;
        return new RefusalText("device " + device + " is granted to repo " + repo.name() + ", but machine " + repo.machine()
                + "'s CDI specs no longer define it (a setup removed it, so the grant is orphaned); once the device is back, "
                + "rerun setup to define it again: " + fix, fix);
    }

    static RefusalText grantsNotLoaded(String device, RepoIdentity repo) {
        return RefusalText.of("grants not loaded yet, retry: the gate on machine " + repo.machine()
                + " is still reading its grants, so device " + device + " cannot be checked yet", "retry in a few seconds");
    }

    static RefusalText unreadableBody(String what, int offset) {
        return new RefusalText("request body is not valid JSON: " + what + " at byte " + offset
                + "; the daemon reads bodies with Go's encoding/json, and the gate refuses what it cannot read exactly the same way",
                "send the body as valid JSON (the docker CLI and SDKs do)");
    }

    static RefusalText duplicateKey(String objectPath, String first, String second) {
        String where = objectPath.equals("body") ? "the body" : objectPath;
        return new RefusalText("keys \"" + first + "\" and \"" + second + "\" in " + where
                + " name the same field (the daemon matches keys case-insensitively and keeps the last); send each key once",
                "send each key once");
    }

    static RefusalText tooLarge(long size, int limit) {
        return new RefusalText("request body " + (size >= 0 ? "of " + size + " bytes " : "") + "is larger than the gate's limit of "
                + limit + " bytes for requests it must inspect; the gate refuses rather than skip inspection",
                "send a body of at most " + limit + " bytes, or have the machine's operator raise gate.max-body-bytes");
    }

    static RefusalText topLevelHostConfig(String key) {
        return RefusalText.of("\"" + key + "\" at the top level of a container create body is refused: daemons up to v26 apply "
                + "HostConfig fields found there to the container", "send it inside \"HostConfig\"");
    }

    static RefusalText startWithBody() {
        return RefusalText.of("starting a container with a request body is refused: clients before API 1.24 could replace the "
                + "container's HostConfig this way", "send start without a body (docker start does) and configure the container when creating it");
    }

    static RefusalText invalidCdiName(String path, String id, String reason) {
        return new RefusalText(path + " names \"" + id + "\", which is not a valid CDI device name: " + reason,
                "write a CDI name as vendor/class=device, e.g. --device nvidia.com/gpu=0 (" + MACHINE_PLACEHOLDER + " shows them)");
    }

    static RefusalText gpusRequest(String driver, long count, List<String> deviceIds, List<String> capabilities) {
        List<String> names = DeviceSuggestions.forGpuRequest(count, deviceIds);
        if (driver.equals("nvidia")) {
            // compose's long-form gpus: key and deploy.resources.reservations.devices send the same request: name the key first
            String fix = "remove the gpus: key and write the granted CDI names as "
                    + DeviceSuggestions.composeDevices(names) + " in the service instead (docker run: "
                    + DeviceSuggestions.cliFlags(names) + ")";
            return RefusalText.of("compose gpus: (driver \"nvidia\"" + capabilitiesText(capabilities)
                    + ", or the same under deploy.resources.reservations.devices) is refused: GPUs are attached only as granted "
                    + "CDI devices", fix);
        }
        String spelled;
        if (!deviceIds.isEmpty()) {
            spelled = "--gpus device=" + String.join(",", deviceIds);
        } else if (count == -1 || count == 0) {
            spelled = "--gpus all";
        } else {
            spelled = "--gpus " + count;
        }
        String driverText = driver.isEmpty() ? "" : " (driver \"" + driver + "\")";
        String fix = "write " + DeviceSuggestions.cliFlags(names) + " instead (compose: " + DeviceSuggestions.composeDevices(names)
                + ", not gpus: or deploy.resources.reservations.devices)";
        return RefusalText.of(spelled + driverText + " is refused: GPUs are attached only as granted CDI devices", fix);
    }

    private static String capabilitiesText(List<String> capabilities) {
        return capabilities.isEmpty() ? "" : ", capabilities " + capabilities;
    }

    static RefusalText deviceDriver(String driver, List<String> deviceIds) {
        List<String> names = deviceIds.stream().filter(io.rediacc.gpu.contracts.cdi.CdiName::isValid).toList();
        if (names.isEmpty()) {
            names = List.of(DeviceSuggestions.ANY_GRANTED);
        }
        return RefusalText.of("device request driver \"" + driver + "\" is refused: only driver \"cdi\" with granted CDI names "
                + "attaches devices here", "write " + DeviceSuggestions.cliFlags(names) + " (compose: " + DeviceSuggestions.composeDevices(names) + ")");
    }

    static RefusalText cdiShape(String what, List<String> deviceIds) {
        List<String> names = deviceIds.isEmpty() ? List.of(DeviceSuggestions.ANY_GRANTED) : deviceIds;
        return RefusalText.of("a CDI device request may carry only DeviceIDs (Count 0, no Options; Capabilities are ignored), the shape docker run --device sends; "
                + "this one sets " + what, "write " + DeviceSuggestions.cliFlags(names) + " instead");
    }

    static RefusalText runtime(String runtime) {
        if (runtime.toLowerCase(java.util.Locale.ROOT).contains("nvidia")) {
            return RefusalText.of("runtime \"" + runtime + "\" is refused: only runc runs containers here, and GPUs are attached as granted CDI devices",
                    "remove --runtime " + runtime + " and write --device nvidia.com/gpu=all instead "
                    + "(compose: remove runtime: " + runtime + " and write devices: [nvidia.com/gpu=all])");
        }
        return RefusalText.of("runtime \"" + runtime + "\" is refused: only runc runs containers here", "remove --runtime " + runtime
                + " (compose: runtime:)");
    }

    static RefusalText rawDevice(String pathOnHost) {
        return RefusalText.of("device " + pathOnHost + " is refused: host device paths are never passed through", insteadOfHostPath(pathOnHost));
    }

    static RefusalText cdiNameInDevices(String name) {
        return RefusalText.of(name + " arrived in HostConfig.Devices, where the daemon treats it as a host path: this client does not send CDI "
                + "devices as device requests", "use docker CLI 25 or later (--device " + name + ") or a Docker Compose release with "
                + "CDI support (devices: [" + name + "]), or send HostConfig.DeviceRequests [{\"Driver\":\"cdi\",\"DeviceIDs\":[\""
                + name + "\"]}]");
    }

    static RefusalText deviceCgroupRule(String rule) {
        return RefusalText.of("device cgroup rule \"" + rule + "\" is refused: it opens host devices by major/minor number",
                "request the device by its granted CDI name instead (--device " + DeviceSuggestions.ANY_GRANTED + ")");
    }

    static RefusalText privileged() {
        return RefusalText.of("privileged mode is refused: it gives the container every host device",
                "remove --privileged (compose: privileged: true) and attach granted devices with --device " + DeviceSuggestions.ANY_GRANTED);
    }

    /** {@code what} names the construct ("bind of host path"), {@code where} the field and spelling. */
    static RefusalText hostPath(String what, String where, String source, String root) {
        String cleaned = HostPathRules.cleaned(source.startsWith("/") ? source : "/" + source);
        String head = what + " " + cleaned + (cleaned.equals(source) ? "" : " (written " + source + ")")
                + " in " + where + " is refused: ";
        return switch (root) {
            case "/" -> RefusalText.of(head + "the host root contains /dev and every other protected path",
                    "bind only directories under the repo's hostPaths");
            case "/dev" -> cleaned.equals("/dev/shm") || cleaned.startsWith("/dev/shm/")
                    ? RefusalText.of(head + "host /dev/shm is the machine's shared memory, not the container's", "for a larger /dev/shm in the container write "
                            + "--shm-size (e.g. --shm-size 8g; compose: shm_size: 8g), and to share memory between containers --ipc container:<name>")
                    : RefusalText.of(head + "host /dev is reached only through granted CDI devices", insteadOfHostPath(cleaned));
            case "/proc" -> RefusalText.of(head + "host /proc reaches the host's whole file system through /proc/<pid>/root, /dev included",
                    "bind the directory you need directly");
            case "/sys" -> new RefusalText(head + "host /sys exposes device registers that the device cgroup does not guard; "
                    + "the container already has its own read-only /sys", "remove the bind: the container already has its own read-only /sys");
            default -> new RefusalText(head + "it reaches " + root + ", which repos must not reach on this machine",
                    "bind only directories under the repo's hostPaths");
        };
    }

    private static String insteadOfHostPath(String hostPath) {
        return DeviceSuggestions.forHostPath(hostPath)
                .map(name -> "write --device " + name + " instead (compose: devices: [" + name + "]); it needs a grant")
                .orElse("request the device by its CDI name (" + MACHINE_PLACEHOLDER + " shows them) with --device "
                        + DeviceSuggestions.ANY_GRANTED + "; it needs a grant");
    }

    /** A host path no repo may reach, whatever its hostPaths say. */
    static RefusalText protectedHostPath(String what, String where, String written, String resolvedTo, ProtectedPath p) {
        String cleaned = HostPathRules.cleaned(written);
        return new RefusalText(what + " " + cleaned + (cleaned.equals(written) ? "" : " (written " + written + ")") + " in " + where
                + " is refused: it reaches " + p.path() + " (" + p.why() + ")"
                + (resolvedTo == null ? "" : " once resolved on this host to " + resolvedTo)
                + ", which no repo may reach, whatever its hostPaths in the repos manifest",
                "bind a directory under the repo's hostPaths that does not contain " + p.path() + ", or use a named volume");
    }

    /** A host path outside the repo's allowlist: names the manifest key that would allow it. */
    static RefusalText hostPathNotAllowed(String what, String where, String written, String resolvedTo, RepoIdentity repo,
                                          RepoAllowance allowance) {
        String cleaned = HostPathRules.cleaned(written);
        String roots = allowance.hostPaths().isEmpty() ? "it has none" : "it has " + String.join(", ", allowance.hostPaths());
        return RefusalText.of(what + " " + cleaned + (cleaned.equals(written) ? "" : " (written " + written + ")") + " in " + where
                + " is refused: " + (resolvedTo == null ? "" : "it resolves to " + resolvedTo + " on this host, and ")
                + "repo " + repo.name() + " may reach host paths only under the hostPaths the repos manifest gives it ("
                + roots + ")", "use a named volume, or ask the machine's operator to add " + (resolvedTo == null ? cleaned : resolvedTo)
                + " (or a directory above it) to hostPaths of repo " + repo.name() + " in " + allowance.manifest());
    }

    static RefusalText mountType(String where, String type) {
        return RefusalText.of("mount " + where + " is refused: the daemon knows mount types bind, volume, tmpfs and image on Linux"
                + (type.isEmpty() ? "" : ", not \"" + type + "\""), "write one of them");
    }

    static RefusalText volumeOptionKey(String path, String key) {
        return RefusalText.of("local volume option \"" + key + "\" in " + path + " is refused: the local driver takes only type, o, device and size "
                + "(written in lower case)", "a named volume without options needs none");
    }

    static RefusalText volumeBindType(String path, String type) {
        String fix = "write a bind as --opt type=none --opt o=bind --opt device=<host path under the repo's hostPaths>";
        return new RefusalText("local volume bind (o=bind) in " + path + " with type " + (type == null ? "unset" : "\"" + type + "\"")
                + " is refused: " + fix
                + " (for cifs and nfs the daemon rewrites the device before mounting it, so they are never combined with a bind)", fix);
    }

    static RefusalText volumeType(String path, String type, RepoIdentity repo, RepoAllowance allowance) {
        return RefusalText.of("local volume " + (type == null ? "without a type" : "type \"" + type + "\"") + " in " + path
                + " is refused: the daemon mounts it on the host as root, and network file systems (resolved and mounted from "
                + "the host's network), block devices and overlay reach host resources no grant covers", "allowed are a volume "
                + "without options (or only size), type=tmpfs, or --opt type=none --opt o=bind --opt device=<a host path under "
                + "the hostPaths of repo " + repo.name() + ">; a network share is mounted by the machine's operator under those "
                + "hostPaths (" + allowance.manifest() + ") and bound from there");
    }

    static RefusalText driverNotListed(String kind, String driver, String path, String key, RepoIdentity repo, RepoAllowance allowance) {
        return RefusalText.of(kind + " driver \"" + driver + "\" (" + path + ") is refused: it is not one of the daemon's built-in " + kind
                + " drivers, so it is a plugin, which runs outside the device grants and may mount what it returns", "use the "
                + "built-in drivers, or ask the machine's operator to list it under " + key + " of repo " + repo.name()
                + " in " + allowance.manifest());
    }

    static RefusalText volumeName(String name, String where) {
        return new RefusalText("volume source \"" + name + "\" in " + where + " is refused: it is neither an absolute host path nor a volume name "
                + "(letters, digits, '_', '.', '-', starting with a letter or digit, two characters at least)",
                "name a volume with letters, digits, '_', '.' and '-' (starting with a letter or digit), or bind an absolute host path");
    }

    static RefusalText existingVolume(String name, Refusal why) {
        return RefusalText.of("volume " + name + " already exists on this repo's daemon with a configuration the gate refuses: " + why.message(),
                "use another volume (docker volume rm " + name + " removes it)");
    }

    static RefusalText pluginManagement(String method, String path) {
        return new RefusalText("plugin management (" + method + " " + path + ") is refused: installing, configuring, enabling, disabling and "
                + "removing plugins is the machine owner's act, not a repo's (a plugin runs outside the device grants and can "
                + "mount what it likes); listing and inspecting plugins works, and an operator can list installed volume and log "
                + "drivers for a repo in the repos manifest",
                "ask the machine's operator to install the plugin and list its driver for the repo in the repos manifest");
    }

    static RefusalText capability(String normalized, String reason, String field) {
        String flag = normalized.startsWith("CAP_") ? normalized.substring(4) : normalized;
        return RefusalText.of("capability " + normalized + " (" + field + ") is refused: " + reason, "remove --cap-add " + flag + " (compose: cap_add)");
    }

    static RefusalText pidHost() {
        return RefusalText.of("--pid host is refused: /proc/<pid>/root of the host's processes reaches the host's /dev",
                "remove --pid host (compose: pid: host)");
    }

    static RefusalText ipcHost() {
        return RefusalText.of("--ipc host is refused: it shares the host's IPC namespace (the shared memory of the host and of every other repo)",
                "remove --ipc host (compose: ipc: host)");
    }

    static RefusalText systemPaths(String field) {
        return new RefusalText("--security-opt systempaths=unconfined is refused (" + field + "): it unmasks /proc and /sys paths that expose "
                + "device configuration, such as /proc/bus and /proc/irq; remove it", "remove --security-opt systempaths=unconfined");
    }

    static RefusalText writableCgroups(String opt) {
        return new RefusalText("--security-opt " + opt + " is refused: a writable cgroup file system lets the container reconfigure its own "
                + "cgroups, the device controller included; remove it", "remove --security-opt " + opt);
    }

    static RefusalText cdiAnnotation(String key) {
        return RefusalText.of("annotation " + key + " is refused: CDI-aware runtimes inject the devices named in cdi.k8s.io/ annotations",
                "request granted devices with --device " + DeviceSuggestions.ANY_GRANTED + " instead");
    }

    static RefusalText execPrivileged() {
        return RefusalText.of("docker exec --privileged is refused: it gives the process every host device", "run exec without --privileged");
    }

    static RefusalText updateField(String field) {
        return new RefusalText("container update of " + field + " is refused: docker update may change resource limits (--cpus, --memory, "
                + "--pids-limit, ...) and the restart policy only; cgroup settings and device lists are fixed when a container "
                + "is created, so recreate it with what it needs", "recreate the container with what it needs");
    }

    static RefusalText updateDevices(String field) {
        return RefusalText.of("container update of " + field + " is refused: devices are fixed when a container is created",
                "recreate the container with --device " + DeviceSuggestions.ANY_GRANTED);
    }

    static RefusalText daemonMisconfigured(String what, RepoIdentity repo, DaemonStatus daemon) {
        return new RefusalText(what + " is refused now: the Docker daemon of repo " + repo.name() + " on machine " + repo.machine()
                + " is misconfigured: " + daemon.detail() + ". A misconfigured daemon can give containers devices no grant names,"
                + " so the gate refuses creates, starts, restarts, exec, docker cp, export, commit and update until it has"
                + " verified the fixed daemon (rdc machine gpu list shows its state)", daemonFix(repo, daemon));
    }

    /** What fixes a daemon that is not verified: its own fix where the check names one. */
    private static String daemonFix(RepoIdentity repo, DaemonStatus daemon) {
        return switch (daemon.state()) {
            case DaemonStatus.MISCONFIGURED -> "fix the daemon.json of repo " + repo.name() + "'s Docker daemon as its check says ("
                    + daemon.detail() + "), restart that daemon, and retry";
            case DaemonStatus.UNREACHABLE -> "start the Docker daemon of repo " + repo.name() + ", then retry";
            default -> "retry in a few seconds";
        };
    }

    static RefusalText daemonNotVerified(String device, RepoIdentity repo, DaemonStatus daemon) {
        String head = "device " + device + " cannot be attached now: ";
        String message = switch (daemon.state()) {
            case DaemonStatus.MISCONFIGURED -> head + "the Docker daemon of repo " + repo.name()
                    + " on machine " + repo.machine() + " is misconfigured: " + daemon.detail()
                    + ". Device requests resume once the gate has verified the fixed daemon";
            case DaemonStatus.UNREACHABLE -> head + "the gate cannot verify the Docker daemon of repo "
                    + repo.name() + " (unreachable: " + daemon.detail() + "); retry once the daemon is running";
            default -> head + "the gate has not verified the Docker daemon of repo " + repo.name() + " yet; retry in a few seconds";
        };
        return new RefusalText(message, daemonFix(repo, daemon));
    }

    static RefusalText unknownRoute(String method, String path, String why) {
        String shown = method + " " + path;
        return new RefusalText("the Docker API has no route " + (shown.length() > 200 ? shown.substring(0, 200) + "…" : shown) + " (" + why + ")",
                "send the route as the Docker API defines it, with a clean path (the docker CLI and SDKs do)");
    }

    static RefusalText apiVersionOutside(String version, RepoIdentity repo, ApiVersions served) {
        boolean tooNew = served.aboveMax(version);
        String fix = "DOCKER_API_VERSION=" + (tooNew ? served.max() : served.min());
        return new RefusalText("client version " + version + " is too " + (tooNew ? "new" : "old") + ": the Docker daemon of repo "
                + repo.name() + " serves API versions " + served.min() + " to " + served.max()
                + " (its GET /version); use a client version it serves (" + fix + ")", fix);
    }

    /** A version prefix above the route table's: the gate cannot judge it, whatever the daemon serves. */
    static RefusalText apiVersionAboveGate(String version) {
        String fix = "DOCKER_API_VERSION=" + DockerRouteTable.MAX_API_VERSION;
        return new RefusalText("API version " + version + " is above " + DockerRouteTable.MAX_API_VERSION
                + ", the newest the gate knows the routes of; use an older client version (" + fix + ")", fix);
    }

    /** An un-versioned request the daemon would serve as its own version, above the route table's. */
    static RefusalText unversionedAboveGate(RepoIdentity repo, String daemonVersion, String path) {
        String fix = "DOCKER_API_VERSION=" + DockerRouteTable.MAX_API_VERSION;
        return new RefusalText("the request names no API version, so the Docker daemon of repo " + repo.name()
                + " would serve it as its own, " + daemonVersion + ", above " + DockerRouteTable.MAX_API_VERSION
                + ", the newest the gate knows the routes of; send it as /v" + DockerRouteTable.MAX_API_VERSION + path
                + " (" + fix + ")", fix);
    }

    static RefusalText apiVersionsUnknown(String version, RepoIdentity repo, DaemonStatus daemon) {
        boolean unreachable = DaemonStatus.UNREACHABLE.equals(daemon.state());
        String why = unreachable
                ? " (the daemon is unreachable: " + daemon.detail() + "); retry once the daemon is running"
                : " yet; retry in a few seconds";
        return new RefusalText("API version " + version + " cannot be checked: the gate has not read which API versions the Docker daemon of repo "
                + repo.name() + " serves (its GET /version)" + why,
                unreachable ? "start the Docker daemon of repo " + repo.name() + ", then retry" : "retry in a few seconds");
    }

    static RefusalText deviceEnv(String entry, String key, List<String> names, boolean exec) {
        String runtime = key.startsWith("NVIDIA_") ? "the NVIDIA container runtime"
                : key.startsWith("DOCKER_RESOURCE_") ? "swarm generic resources and the runtimes that read them"
                : "another vendor's container runtime";
        String instead = exec
                ? "devices are fixed when a container is created: create it with " + DeviceSuggestions.cliFlags(names)
                : "write " + DeviceSuggestions.cliFlags(names) + " instead (compose: " + DeviceSuggestions.composeDevices(names)
                        + ", not environment:)";
        String fix = exec ? "create the container with " + DeviceSuggestions.cliFlags(names) : instead;
        return new RefusalText((exec ? "docker exec " : "") + "-e " + entry + " is refused: " + key + " selects devices under " + runtime
                + ", not through a granted CDI device; " + instead, fix);
    }

    static RefusalText buildContentType(String contentType, String why) {
        return RefusalText.of("a build request with Content-Type \"" + contentType + "\" is refused: " + why,
                "send the build context as application/x-tar with the parameters in the query string (docker build does), "
                + "and use the classic builder: DOCKER_BUILDKIT=0 docker build ...");
    }

    static RefusalText buildkit(String what) {
        String fix = "the classic builder works: DOCKER_BUILDKIT=0 docker build ...";
        return RefusalText.of("BuildKit (" + what + ") is refused on this machine: its entitlements can grant devices the gate cannot inspect",
                fix);
    }

    static RefusalText swarm(String what) {
        return new RefusalText("docker swarm " + what + " is refused: another swarm manager could schedule containers onto this daemon without "
                + "passing through the gate", "run containers on this machine directly (docker run, docker compose), not through a swarm");
    }

    static RefusalText serviceGenericResources() {
        return RefusalText.of("service generic resources (swarm GPUs, --generic-resource) are refused: swarm tasks cannot receive devices on "
                + "this machine", "run the workload as a container with --device " + DeviceSuggestions.ANY_GRANTED);
    }

    static RefusalText servicePlugin() {
        return new RefusalText("plugin services (TaskTemplate.PluginSpec) are refused: the plugin would run with privileges the gate cannot "
                + "inspect, and installing plugins is the machine owner's act", "ask the machine's operator to install the plugin");
    }

    static RefusalText storedUnreadable(String detail) {
        return new RefusalText("the stored configuration of this container could not be read, so the gate cannot start it: " + detail,
                RECREATE);
    }

    /** The fix of a container the gate cannot start as it was created. */
    static final String RECREATE = "recreate the container through the gate (docker rm it, then docker run/create it again)";

    /** Fills in the machine where a message refers to it generically. */
    static Refusal forMachine(Refusal r, RepoIdentity repo) {
        if (repo == null || repo.machine() == null
                || !(r.message().contains(MACHINE_PLACEHOLDER) || r.fix().contains(MACHINE_PLACEHOLDER))) {
            return r;
        }
        String machine = "rdc machine gpu list " + repo.machine();
        return new Refusal(r.status(), r.rule(), r.device(), r.message().replace(MACHINE_PLACEHOLDER, machine),
                r.fix().replace(MACHINE_PLACEHOLDER, machine));
    }

    static String storedPrefix() {
        return "this container was created with a configuration the gate refuses: ";
    }

    static RefusalText archiveDevice(String name, String kind, long major, long minor) {
        String fix = "remove the entry from the archive (tar --exclude) and upload it again";
        return new RefusalText("the uploaded archive holds a " + kind + " device entry \"" + name + "\" (" + major + ":" + minor
                + "); device nodes reach a container only as granted CDI devices (docker run --device nvidia.com/gpu=<n>),"
                + " never by docker cp. Remove the entry from the archive (tar --exclude) and upload it again", fix);
    }

    static RefusalText archiveFormat(String why) {
        return new RefusalText("the gate checks every uploaded archive before the daemon unpacks it, and refuses this one: " + why,
                "upload a plain tar archive (docker cp writes one)");
    }

    static RefusalText pathNotClean(String what, String where, String written) {
        String fix = "write it without '.', '..', '//' or a trailing '/' (" + HostPathRules.cleaned(written) + " if that is the directory you mean)";
        return RefusalText.of(what + " \"" + written + "\" in " + where + " is refused: the daemon uses this string exactly as written, and the kernel"
                + " follows each symlink on it before a '..' is applied, so the gate judges only clean paths", fix);
    }

    static RefusalText logSocket(String option, String value, String path) {
        return RefusalText.of("log socket " + option + "=" + value + " in " + path + " is refused: the daemon connects to a unix log socket by"
                + " path, as root, every time it starts the container's logger (each start, each restart by a restart policy, its"
                + " own boot, docker logs of a stopped container), long after the gate saw the request, so a directory swapped for"
                + " a symlink would have it connect wherever the repo points", "send logs over the network instead (the daemon"
                + " connects from the host's network namespace): syslog-address=udp://127.0.0.1:514 or tcp://127.0.0.1:514,"
                + " fluentd-address=tcp://127.0.0.1:24224, or keep the default syslog address (the host's own /dev/log), or use"
                + " json-file, local or journald");
    }

    static RefusalText logHostFile(String option, String path) {
        return RefusalText.of("log option " + option + " in " + path + " is refused: the daemon reads that file on the host as root, outside"
                + " anything the gate can check", "use a log driver without TLS files (json-file, local, journald) or send logs to a"
                + " collector that terminates TLS itself");
    }

    // ---------------------------------------------------------------- refusals of the proxy itself

    /** A body that ended before its declared length. */
    public static Refusal incompleteBody() {
        return new Refusal(400, RULE_INCOMPLETE_BODY, null, "the request body ended before it was complete; it was not forwarded",
                "send the whole body (its Content-Length, or every chunk up to the last) on one connection");
    }

    /** A request that is not HTTP/1.x ({@code PRI * HTTP/2.0}). */
    public static Refusal httpVersion(String version) {
        return new Refusal(505, RULE_HTTP_VERSION, null, "HTTP version " + version
                + " is not served: the Docker API through the gate is HTTP/1.1", "speak HTTP/1.1 to the gate (the docker CLI and SDKs do)");
    }

    /** A request whose framing is unknowable ({@code message} says how). */
    public static Refusal framing(String message) {
        return new Refusal(400, RULE_FRAMING, null, message,
                "send well-formed HTTP/1.1 with one Content-Length or Transfer-Encoding: chunked (the docker CLI and SDKs do)");
    }

    /** An inspected body larger than the gate holds. */
    public static Refusal bodyTooLargeToInspect(int maxBody) {
        return new Refusal(413, RULE_TOO_LARGE, null, "the request body is larger than the " + maxBody
                + " bytes the gate inspects; it was refused, not forwarded uninspected",
                "send a body of at most " + maxBody + " bytes, or have the machine's operator raise gate.max-body-bytes");
    }

    /** An upload into a container larger than the gate holds while judging it. */
    public static Refusal uploadTooLarge(long maxBytes) {
        return new Refusal(413, RULE_TOO_LARGE, null, "the upload is larger than "
                + maxBytes + " bytes (gate.connections.max-upload-bytes): the gate holds an upload until all of it is"
                + " judged, so that a refused archive extracts nothing; copy large trees through a bind mount under the"
                + " repo's hostPaths instead, or have the machine owner raise the limit",
                "copy large trees through a bind mount under the repo's hostPaths, or have the machine's operator raise"
                + " gate.connections.max-upload-bytes");
    }

    /** The gate failed itself (its log says why): it refuses rather than pass what it did not judge. */
    public static Refusal gateError(String message) {
        return new Refusal(403, RULE_GATE_ERROR, null, message, GATE_FAULT);
    }

    /** The fix of a refusal the gate's own failure caused. */
    static final String GATE_FAULT = "retry; if it keeps failing, the machine's operator finds the cause in the gate's log";
}
