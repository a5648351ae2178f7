package io.rediacc.gpu.cli.config;

import io.rediacc.gpu.cli.Failure;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code ~/.config/rdc/config.yaml}: {@code grantUrl}, {@code inventoryUrl}, {@code token}. An
 * unknown key is an error, so a typo does not silently fall back to a default.
 */
public record ConfigFile(String grantUrl, String inventoryUrl, String token) {

    static final Set<String> KEYS = Set.of("grantUrl", "inventoryUrl", "token");
    static final ConfigFile EMPTY = new ConfigFile(null, null, null);

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
            document = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (YAMLException e) {
            throw Failure.usage("config file " + path + " is not valid YAML: " + firstLine(e.getMessage()));
        }
        if (document == null) {
            return EMPTY;
        }
        if (!(document instanceof Map<?, ?> map)) {
            throw Failure.usage("config file " + path + " must be a mapping of grantUrl, inventoryUrl, token");
        }
        Set<String> unknown = new TreeSet<>();
        map.keySet().forEach(k -> {
            if (!KEYS.contains(String.valueOf(k))) {
                unknown.add(String.valueOf(k));
            }
        });
        if (!unknown.isEmpty()) {
            throw Failure.usage("config file " + path + " has unknown key(s) " + unknown
                    + "; known keys: grantUrl, inventoryUrl, token");
        }
        return new ConfigFile(string(path, map, "grantUrl"), string(path, map, "inventoryUrl"), string(path, map, "token"));
    }

    private static String string(Path path, Map<?, ?> map, String key) {
        Object value = map.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            throw Failure.usage("config file " + path + ": " + key + " must be a string");
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
