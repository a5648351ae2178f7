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

    /**
     * {@code POST /containers/{id}/update}: an UpdateConfig, Resources at the top level. The daemon
     * does not change devices on update, but a body that asks to is refused rather than trusted.
     */
    void update(JsonObject body) {
        for (String field : List.of("Devices", "DeviceCgroupRules", "DeviceRequests")) {
            if (!array(body.field(field, field), field).isEmpty()) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_UPDATE_DEVICES, null, RefusalMessages.updateDevices(field));
            }
        }
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
