package io.rediacc.gpu.cli.config;

import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.contracts.yaml.YamlText;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code ~/.config/rdc/config.yaml}: {@code grantUrl}, {@code inventoryUrl}, {@code token}, and the
 * machines {@code rdc machine setup} reaches over SSH. An unknown key is an error, so a typo does
 * not silently fall back to a default.
 */
public record ConfigFile(String grantUrl, String inventoryUrl, String token, Map<String, MachineEntry> machines) {

    static final Set<String> KEYS = Set.of("grantUrl", "inventoryUrl", "token", "machines");
    static final Set<String> MACHINE_KEYS = Set.of("host", "identity", "knownHosts", "root", "path");
    static final ConfigFile EMPTY = new ConfigFile(null, null, null, Map.of());

    /**
     * A machine's SSH address and how to reach it.
     *
     * @param host       {@code user@addr[:port]}
     * @param identity   private key file (else ssh's defaults and agent)
     * @param knownHosts known_hosts file to verify the host key against (else ssh's defaults)
     * @param root       the machine's root directory (default {@code /}; a simulated machine's fixture root)
     * @param path       search path on the machine for its tools (a simulated machine's stand-ins)
     */
    public record MachineEntry(String host, String identity, String knownHosts, String root, String path) {
    }

    public static ConfigFile read(Path path, boolean mustExist) {
        String text;
        try {
            text = Files.readString(path);
        } catch (NoSuchFileException e) {
            if (mustExist) {
                throw Failure.usage("config file " + path + " does not exist");
            }
            return EMPTY;
        } catch (IOException e) {
            throw Failure.usage("cannot read config file " + path + ": " + e.getMessage());
        }
        return parse(path, text);
    }

    static ConfigFile parse(Path path, String text) {
        Object document;
        try {
            document = YamlText.read(text);
        } catch (IOException e) {
            throw Failure.usage("config file " + path + " is not valid YAML: " + firstLine(e.getMessage()));
        }
        if (document == null) {
            return EMPTY;
        }
        if (!(document instanceof Map<?, ?> map)) {
            throw Failure.usage("config file " + path + " must be a mapping of grantUrl, inventoryUrl, token, machines");
        }
        Set<String> unknown = new TreeSet<>();
        map.keySet().forEach(k -> {
            if (!KEYS.contains(String.valueOf(k))) {
                unknown.add(String.valueOf(k));
            }
        });
        if (!unknown.isEmpty()) {
            throw Failure.usage("config file " + path + " has unknown key(s) " + unknown
                    + "; known keys: grantUrl, inventoryUrl, token, machines");
        }
        return new ConfigFile(string(path, map, "grantUrl"), string(path, map, "inventoryUrl"), string(path, map, "token"),
                machines(path, map.get("machines")));
    }

    private static Map<String, MachineEntry> machines(Path path, Object value) {
        if (value == null) {
            return Map.of();
        }
        if (!(value instanceof Map<?, ?> all)) {
            throw Failure.usage("config file " + path + ": machines must map machine names to {host, identity, knownHosts}");
        }
        Map<String, MachineEntry> out = new java.util.TreeMap<>();
        for (var e : all.entrySet()) {
            String name = String.valueOf(e.getKey());
            if (!(e.getValue() instanceof Map<?, ?> m)) {
                throw Failure.usage("config file " + path + ": machines." + name + " must be a mapping with host (user@addr[:port])");
            }
            Set<String> unknown = new TreeSet<>();
            m.keySet().forEach(k -> {
                if (!MACHINE_KEYS.contains(String.valueOf(k))) {
                    unknown.add(String.valueOf(k));
                }
            });
            if (!unknown.isEmpty()) {
                throw Failure.usage("config file " + path + ": machines." + name + " has unknown key(s) " + unknown
                        + "; known keys: " + new TreeSet<>(MACHINE_KEYS));
            }
            String where = "machines." + name + ".";
            out.put(name, new MachineEntry(string(path, m, "host", where), string(path, m, "identity", where),
                    string(path, m, "knownHosts", where), string(path, m, "root", where), string(path, m, "path", where)));
        }
        return out;
    }

    private static String string(Path path, Map<?, ?> map, String key) {
        return string(path, map, key, "");
    }

    private static String string(Path path, Map<?, ?> map, String key, String where) {
        Object value = map.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            throw Failure.usage("config file " + path + ": " + where + key + " must be a string");
        }
        return s;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
