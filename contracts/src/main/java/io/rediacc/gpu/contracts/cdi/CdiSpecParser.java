package io.rediacc.gpu.contracts.cdi;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.contracts.cdi.CdiSpec.ContainerEdits;
import io.rediacc.gpu.contracts.cdi.CdiSpec.Device;
import io.rediacc.gpu.contracts.cdi.CdiSpec.DeviceNode;
import io.rediacc.gpu.contracts.cdi.CdiSpec.Hook;
import io.rediacc.gpu.contracts.cdi.CdiSpec.Mount;
import io.rediacc.gpu.contracts.yaml.YamlText;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one CDI spec (YAML or JSON) strictly: a field the specification does not define, a
 * missing required field, a wrong type, an unsupported {@code cdiVersion} or an invalid name makes
 * the whole file invalid, as with the reference loader.
 */
public final class CdiSpecParser {

    /** Spec files are small; anything bigger is refused before parsing. */
    public static final int MAX_SPEC_BYTES = 4 * 1024 * 1024;

    private static final Set<String> SPEC_FIELDS = Set.of("cdiVersion", "kind", "annotations", "devices", "containerEdits");
    private static final Set<String> DEVICE_FIELDS = Set.of("name", "annotations", "containerEdits");
    private static final Set<String> EDITS_FIELDS = Set.of("env", "deviceNodes", "hooks", "mounts", "intelRdt",
            "additionalGids", "netDevices");
    private static final Set<String> NODE_FIELDS = Set.of("path", "hostPath", "type", "major", "minor", "fileMode",
            "permissions", "uid", "gid");
    private static final Set<String> HOOK_FIELDS = Set.of("hookName", "path", "args", "env", "timeout");
    private static final Set<String> MOUNT_FIELDS = Set.of("hostPath", "containerPath", "options", "type");
    private static final Set<String> RDT_FIELDS = Set.of("closID", "l3CacheSchema", "memBwSchema", "schemata",
            "enableMonitoring");
    private static final Set<String> NET_FIELDS = Set.of("hostInterfaceName", "name");
    private static final Set<String> HOOK_NAMES = Set.of("prestart", "createRuntime", "createContainer",
            "startContainer", "poststart", "poststop");

    private CdiSpecParser() {
    }

    /** Parses a spec from its bytes; {@code source} names the file in errors. */
    public static CdiSpec parse(String source, byte[] content) {
        if (content.length > MAX_SPEC_BYTES) {
            throw new InvalidCdiSpecException(source + ": spec file is " + content.length + " bytes; at most "
                    + MAX_SPEC_BYTES + " are read");
        }
        Object root = read(source, content);
        Map<String, Object> spec = object(source, "spec", root, SPEC_FIELDS);
        String version = requiredString(source, "cdiVersion", spec);
        if (!CdiSpec.VERSIONS.contains(version)) {
            throw new InvalidCdiSpecException(source + ": cdiVersion \"" + version + "\" is not supported; expected one of "
                    + CdiSpec.VERSIONS);
        }
        String kind = requiredString(source, "kind", spec);
        try {
            CdiName.validateKind(kind);
        } catch (InvalidCdiNameException e) {
            throw new InvalidCdiSpecException(source + ": invalid kind: " + e.getMessage());
        }
        Object devicesValue = spec.get("devices");
        if (!(devicesValue instanceof List<?> list) || list.isEmpty()) {
            throw new InvalidCdiSpecException(source + ": \"devices\" must be a non-empty list");
        }
        List<Device> devices = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String where = "devices[" + i + "]";
            Map<String, Object> d = object(source, where, list.get(i), DEVICE_FIELDS);
            String name = requiredString(source, where + ".name", d.get("name"));
            try {
                CdiName.validateDevice(name, kind + "=" + name);
            } catch (InvalidCdiNameException e) {
                throw new InvalidCdiSpecException(source + ": " + where + ": " + e.getMessage());
            }
            if (!seen.add(name)) {
                throw new InvalidCdiSpecException(source + ": device \"" + name + "\" is defined twice");
            }
            if (d.get("containerEdits") == null) {
                throw new InvalidCdiSpecException(source + ": " + where + " (\"" + name + "\") has no containerEdits");
            }
            ContainerEdits edits = edits(source, where + ".containerEdits", d.get("containerEdits"));
            devices.add(new Device(name, stringMap(source, where + ".annotations", d.get("annotations")), edits));
        }
        ContainerEdits common = spec.get("containerEdits") == null ? null
                : edits(source, "containerEdits", spec.get("containerEdits"));
        return new CdiSpec(source, digest(content), version, kind,
                stringMap(source, "annotations", spec.get("annotations")), devices, common);
    }

    private static Object read(String source, byte[] content) {
        String trimmed = new String(content, StandardCharsets.UTF_8).stripLeading();
        try {
            if (source.endsWith(".json") || trimmed.startsWith("{")) {
                return new ObjectMapper().readValue(content, Object.class);
            }
            return YamlText.read(content);
        } catch (Exception e) {
            String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
            throw new InvalidCdiSpecException(source + ": not valid " + (source.endsWith(".json") ? "JSON" : "YAML")
                    + ": " + msg, e);
        }
    }

    private static ContainerEdits edits(String source, String where, Object value) {
        Map<String, Object> e = object(source, where, value, EDITS_FIELDS);
        List<String> env = stringList(source, where + ".env", e.get("env"));
        List<DeviceNode> nodes = new ArrayList<>();
        List<Object> rawNodes = list(source, where + ".deviceNodes", e.get("deviceNodes"));
        for (int i = 0; i < rawNodes.size(); i++) {
            String w = where + ".deviceNodes[" + i + "]";
            Map<String, Object> n = object(source, w, rawNodes.get(i), NODE_FIELDS);
            String path = requiredString(source, w + ".path", n.get("path"));
            nodes.add(new DeviceNode(path, optionalString(source, w + ".hostPath", n.get("hostPath")),
                    optionalString(source, w + ".type", n.get("type")), number(source, w + ".major", n.get("major")),
                    number(source, w + ".minor", n.get("minor")), number(source, w + ".fileMode", n.get("fileMode")),
                    optionalString(source, w + ".permissions", n.get("permissions")),
                    number(source, w + ".uid", n.get("uid")), number(source, w + ".gid", n.get("gid"))));
        }
        List<Hook> hooks = new ArrayList<>();
        List<Object> rawHooks = list(source, where + ".hooks", e.get("hooks"));
        for (int i = 0; i < rawHooks.size(); i++) {
            String w = where + ".hooks[" + i + "]";
            Map<String, Object> h = object(source, w, rawHooks.get(i), HOOK_FIELDS);
            String hookName = requiredString(source, w + ".hookName", h.get("hookName"));
            if (!HOOK_NAMES.contains(hookName)) {
                throw new InvalidCdiSpecException(source + ": " + w + ".hookName \"" + hookName + "\" is not one of " + HOOK_NAMES);
            }
            hooks.add(new Hook(hookName, requiredString(source, w + ".path", h.get("path")),
                    stringList(source, w + ".args", h.get("args")), stringList(source, w + ".env", h.get("env")),
                    number(source, w + ".timeout", h.get("timeout"))));
        }
        List<Mount> mounts = new ArrayList<>();
        List<Object> rawMounts = list(source, where + ".mounts", e.get("mounts"));
        for (int i = 0; i < rawMounts.size(); i++) {
            String w = where + ".mounts[" + i + "]";
            Map<String, Object> m = object(source, w, rawMounts.get(i), MOUNT_FIELDS);
            mounts.add(new Mount(requiredString(source, w + ".hostPath", m.get("hostPath")),
                    requiredString(source, w + ".containerPath", m.get("containerPath")),
                    stringList(source, w + ".options", m.get("options")), optionalString(source, w + ".type", m.get("type"))));
        }
        Map<String, Object> rdt = e.get("intelRdt") == null ? null
                : object(source, where + ".intelRdt", e.get("intelRdt"), RDT_FIELDS);
        List<Long> gids = new ArrayList<>();
        for (Object gid : list(source, where + ".additionalGids", e.get("additionalGids"))) {
            gids.add(number(source, where + ".additionalGids", gid));
        }
        List<Map<String, Object>> nets = new ArrayList<>();
        List<Object> rawNets = list(source, where + ".netDevices", e.get("netDevices"));
        for (int i = 0; i < rawNets.size(); i++) {
            nets.add(object(source, where + ".netDevices[" + i + "]", rawNets.get(i), NET_FIELDS));
        }
        return new ContainerEdits(env, nodes, hooks, mounts, rdt, gids, nets);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(String source, String where, Object value, Set<String> allowed) {
        if (!(value instanceof Map<?, ?> map)) {
            throw new InvalidCdiSpecException(source + ": " + where + " must be an object");
        }
        for (Object key : map.keySet()) {
            if (!(key instanceof String k) || !allowed.contains(k)) {
                throw new InvalidCdiSpecException(source + ": unknown field \"" + key + "\" in " + where
                        + "; the CDI specification defines " + new java.util.TreeSet<>(allowed));
            }
        }
        return (Map<String, Object>) map;
    }

    private static List<Object> list(String source, String where, Object value) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> l)) {
            throw new InvalidCdiSpecException(source + ": " + where + " must be a list");
        }
        return new ArrayList<>(l);
    }

    private static List<String> stringList(String source, String where, Object value) {
        List<String> out = new ArrayList<>();
        for (Object o : list(source, where, value)) {
            if (!(o instanceof String s)) {
                throw new InvalidCdiSpecException(source + ": " + where + " must be a list of strings");
            }
            out.add(s);
        }
        return out;
    }

    private static Map<String, String> stringMap(String source, String where, Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw new InvalidCdiSpecException(source + ": " + where + " must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String k) || !(e.getValue() instanceof String v)) {
                throw new InvalidCdiSpecException(source + ": " + where + " must be an object of strings");
            }
            out.put(k, v);
        }
        return out;
    }

    private static String requiredString(String source, String where, Map<String, Object> map) {
        return requiredString(source, where, map.get(where));
    }

    private static String requiredString(String source, String where, Object value) {
        if (value == null) {
            throw new InvalidCdiSpecException(source + ": required field \"" + where + "\" is missing");
        }
        if (!(value instanceof String s) || s.isEmpty()) {
            throw new InvalidCdiSpecException(source + ": " + where + " must be a non-empty string");
        }
        return s;
    }

    private static String optionalString(String source, String where, Object value) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            throw new InvalidCdiSpecException(source + ": " + where + " must be a string");
        }
        return s;
    }

    private static Long number(String source, String where, Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Integer || value instanceof Long || value instanceof java.math.BigInteger) {
            return ((Number) value).longValue();
        }
        throw new InvalidCdiSpecException(source + ": " + where + " must be an integer");
    }

    static String digest(byte[] content) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
