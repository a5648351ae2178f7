package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.string;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Managed plugins run as containers the daemon configures from the plugin's own config. A client
 * must list the privileges it accepts in {@code plugins/pull} and {@code plugins/{name}/upgrade},
 * and the daemon refuses a mismatch — so refusing device privileges there keeps every plugin that
 * wants devices off the machine. {@code plugins/{name}/set} can repoint a plugin's device path or
 * mount source after installation.
 */
final class PluginRules {

    private final HostPathRules hostPaths;

    PluginRules(HostPathRules hostPaths) {
        this.hostPaths = hostPaths;
    }

    /** A {@code []PluginPrivilege} body: {@code {"Name", "Description", "Value": [...]}}. */
    void privileges(JsonValue body) {
        List<JsonValue> list = array(body, "body");
        for (int i = 0; i < list.size(); i++) {
            String at = "[" + i + "]";
            JsonObject privilege = object(list.get(i), at);
            if (privilege == null) {
                continue;
            }
            String name = string(privilege.field("Name", at + ".Name"), at + ".Name");
            List<String> values = strings(privilege.field("Value", at + ".Value"), at + ".Value");
            String key = name.trim().toLowerCase(Locale.ROOT);
            switch (key) {
                case "device", "allow-all-devices" -> throw refuse(name, values, "plugins run outside the device grants");
                case "host pid namespace" -> throw refuse(name, values, "host /proc/<pid>/root reaches the host's /dev");
                case "host ipc namespace" -> throw refuse(name, values, "it shares the host's IPC namespace");
                case "mount" -> {
                    for (String source : values) {
                        Optional<String> root = hostPaths.reached(source, false);
                        if (root.isPresent()) {
                            throw refuse(name, values, "the source " + source + " reaches " + root.get()
                                    + ", which only granted CDI devices may reach");
                        }
                    }
                }
                case "capabilities" -> {
                    for (String capability : values) {
                        String normalized = CapabilityRules.normalize(capability);
                        String reason = CapabilityRules.REFUSED.get(normalized);
                        if (reason != null) {
                            throw refuse(name, values, normalized + ": " + reason);
                        }
                    }
                }
                default -> {
                    // "network" and anything else: opens no device.
                }
            }
        }
    }

    /** A {@code plugins/{name}/set} body: {@code ["KEY=value", "mount.source=/path", "dev.path=/dev/x"]}. */
    void settings(JsonValue body) {
        for (String setting : strings(body, "body")) {
            int eq = setting.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String key = setting.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = setting.substring(eq + 1);
            if (key.endsWith(".path")) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_PLUGIN_SETTING, value,
                        RefusalMessages.pluginSetting(setting, "it sets a plugin's device path, and plugins run outside the device grants"));
            }
            if (key.endsWith(".source")) {
                Optional<String> root = hostPaths.reached(value, false);
                if (root.isPresent()) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_PLUGIN_SETTING, HostPathRules.cleaned(value),
                            RefusalMessages.pluginSetting(setting, "the mount source reaches " + root.get()
                                    + ", which only granted CDI devices may reach"));
                }
            }
        }
    }

    private static PolicyRefusal refuse(String name, List<String> values, String reason) {
        return PolicyRefusal.forbidden(RefusalMessages.RULE_PLUGIN_PRIVILEGE, values.isEmpty() ? null : values.get(0),
                RefusalMessages.pluginPrivilege(name, values, reason));
    }
}
