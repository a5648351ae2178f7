package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.bool;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.string;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.List;
import java.util.Set;

/** Bodies of container create, container update, exec create and volume create. */
final class ContainerBodyRules {

    private final HostConfigRules hostConfig;
    private final MountRules mounts;

    ContainerBodyRules(HostConfigRules hostConfig, MountRules mounts) {
        this.hostConfig = hostConfig;
        this.mounts = mounts;
    }

    /** {@code POST /containers/create}: Config fields at the top, HostConfig inside "HostConfig". */
    void create(JsonObject body, Set<String> requested, HostPathRules.Reach reach) {
        for (JsonValue.Member member : body.members()) {
            if (HostConfigFieldNames.isHostConfigField(member.key())) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_TOP_LEVEL_HOST_CONFIG,
                        RefusalMessages.topLevelHostConfig(member.key()));
            }
        }
        EnvRules.check(body.field("Env", "Env"), "Env", false);
        JsonObject hc = object(body.field("HostConfig", "HostConfig"), "HostConfig");
        if (hc != null) {
            hostConfig.check(hc, "HostConfig", HostConfigRules.Source.REQUEST, requested, reach);
        }
    }

    /** UpdateConfig fields (moby's container.Resources and RestartPolicy) a repo may change. */
    private static final Set<String> UPDATE_ALLOWED = folded(List.of("CpuShares", "Memory", "NanoCpus", "BlkioWeight",
            "CpuPeriod", "CpuQuota", "CpuRealtimePeriod", "CpuRealtimeRuntime", "CpusetCpus", "CpusetMems", "KernelMemory",
            "KernelMemoryTCP", "MemoryReservation", "MemorySwap", "MemorySwappiness", "OomKillDisable", "PidsLimit",
            "Ulimits", "CpuCount", "CpuPercent", "IOMaximumIOps", "IOMaximumBandwidth", "RestartPolicy"));
    /** Resources fields that add devices or change the container's cgroup: refused unless empty (the CLI sends them empty). */
    private static final List<String> UPDATE_DEVICE_FIELDS = List.of("Devices", "DeviceCgroupRules", "DeviceRequests");

    private static Set<String> folded(List<String> names) {
        Set<String> out = new java.util.HashSet<>();
        for (String n : names) {
            out.add(GoJsonFolding.fold(n));
        }
        return Set.copyOf(out);
    }

    /**
     * {@code POST /containers/{id}/update}: an UpdateConfig, Resources at the top level. Only the
     * resource limits and the restart policy may change: devices and device cgroup rules
     * ({@value RefusalMessages#RULE_UPDATE_DEVICES}), and cgroup settings or any other field
     * ({@value RefusalMessages#RULE_UPDATE_FIELD}: {@code CgroupParent}, the {@code Blkio*Device*}
     * lists that name host devices, fields this gate does not know) are refused unless empty, as the
     * docker CLI sends them. Returns whether the body sets a restart policy (then the container is
     * judged like a start: the daemon will start it itself).
     */
    boolean update(JsonObject body) {
        for (String field : UPDATE_DEVICE_FIELDS) {
            if (!array(body.field(field, field), field).isEmpty()) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_UPDATE_DEVICES, null, RefusalMessages.updateDevices(field));
            }
        }
        for (JsonValue.Member member : body.members()) {
            String key = GoJsonFolding.fold(member.key());
            if (UPDATE_ALLOWED.contains(key) || UPDATE_DEVICE_FIELDS.stream().anyMatch(f -> GoJsonFolding.fold(f).equals(key))) {
                continue;
            }
            if (!isZero(member.value())) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_UPDATE_FIELD, null, RefusalMessages.updateField(member.key()));
            }
        }
        JsonObject restart = object(body.field("RestartPolicy", "RestartPolicy"), "RestartPolicy");
        if (restart == null) {
            return false;
        }
        String name = string(restart.field("Name", "RestartPolicy.Name"), "RestartPolicy.Name");
        return name != null && !name.isEmpty() && !name.equals("no");
    }

    /** Go's zero value as JSON: null, false, 0, "", [], {}. */
    private static boolean isZero(JsonValue value) {
        if (value instanceof JsonValue.JsonNull) {
            return true;
        }
        if (value instanceof JsonValue.JsonBool b) {
            return !b.value();
        }
        if (value instanceof JsonValue.JsonString str) {
            return str.value().isEmpty();
        }
        if (value instanceof JsonValue.JsonNumber n) {
            return n.text().matches("-?0(\\.0+)?([eE][+-]?[0-9]+)?");
        }
        if (value instanceof JsonValue.JsonArray a) {
            return a.elements().isEmpty();
        }
        return value instanceof JsonObject o && o.members().isEmpty();
    }

    /** {@code POST /containers/{id}/exec}: an ExecConfig; privileged exec opens every device. */
    void execCreate(JsonObject body) {
        if (bool(body.field("Privileged", "Privileged"), "Privileged")) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_EXEC_PRIVILEGED, null, RefusalMessages.execPrivileged());
        }
        EnvRules.check(body.field("Env", "Env"), "Env", true);
    }

    /** {@code POST /volumes/create}: a volume's driver options are mounted by the daemon on the host. */
    void volumeCreate(JsonObject body, HostPathRules.Reach reach) {
        String driver = string(body.field("Driver", "Driver"), "Driver");
        mounts.volumeDriver(driver, "Driver", reach);
        mounts.volumeDriverOptions(driver, body.field("DriverOpts", "DriverOpts"), "DriverOpts", reach);
        // Cluster (CSI) volume specs are swarm-only and name no host path; nothing else to check.
    }
}
