package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.present;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;

/**
 * Swarm service create/update bodies ({@code swarm.ServiceSpec}). The daemon creates the task
 * containers itself, behind the gate's back, so the spec is checked here: mounts and added
 * capabilities like a container's, no generic resources (swarm's way to hand out GPUs, which the
 * nvidia runtime then attaches), no plugin tasks. Swarm {@code Privileges} (seccomp, AppArmor,
 * SELinux, credential spec) are allowed, as for containers.
 */
final class ServiceSpecRules {

    private final MountRules mounts;

    ServiceSpecRules(MountRules mounts) {
        this.mounts = mounts;
    }

    void check(JsonObject spec, HostPathRules.Reach reach) {
        String tp = "TaskTemplate";
        JsonObject task = object(spec.field("TaskTemplate", tp), tp);
        if (task == null) {
            return;
        }
        JsonObject container = object(task.field("ContainerSpec", tp + ".ContainerSpec"), tp + ".ContainerSpec");
        if (container != null) {
            String cp = tp + ".ContainerSpec";
            mounts.mounts(container.field("Mounts", cp + ".Mounts"), cp + ".Mounts", false, reach);
            CapabilityRules.check(strings(container.field("CapabilityAdd", cp + ".CapabilityAdd"), cp + ".CapabilityAdd"),
                    cp + ".CapabilityAdd");
            EnvRules.check(container.field("Env", cp + ".Env"), cp + ".Env", false);
        }
        if (present(task.field("PluginSpec", tp + ".PluginSpec"))) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_SERVICE_PLUGIN, null, RefusalMessages.servicePlugin());
        }
        JsonObject logDriver = object(task.field("LogDriver", tp + ".LogDriver"), tp + ".LogDriver");
        if (logDriver != null) {
            String lp = tp + ".LogDriver";
            HostConfigRules.logDriver(GoJsonTypes.string(logDriver.field("Name", lp + ".Name"), lp + ".Name"),
                    logDriver.field("Options", lp + ".Options"), lp, reach);
        }
        JsonObject resources = object(task.field("Resources", tp + ".Resources"), tp + ".Resources");
        if (resources != null) {
            for (String side : new String[] {"Reservations", "Limits"}) {
                String rp = tp + ".Resources." + side;
                JsonObject r = object(resources.field(side, rp), rp);
                if (r != null && !array(r.field("GenericResources", rp + ".GenericResources"), rp + ".GenericResources").isEmpty()) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_SERVICE_RESOURCES, null, RefusalMessages.serviceGenericResources());
                }
            }
        }
    }
}
