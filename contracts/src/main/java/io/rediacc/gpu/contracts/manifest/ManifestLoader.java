package io.rediacc.gpu.contracts.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.text.ClosestName;
import io.rediacc.gpu.contracts.yaml.YamlText;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The one reader of the repos manifest (format: contracts README, "The repos manifest"; JSON Schema:
 * {@code schemas/repos-manifest.schema.json}), for docker-gate, node-agent and machine setup alike.
 * Strict on purpose: the manifest decides repo identity, the product's security root, so a typo in a
 * key would otherwise silently drop a setting of the security boundary. Unknown keys are errors that
 * name the key, where it is, and the known key it was probably meant to be; so are duplicated keys.
 */
public final class ManifestLoader {

    /** The keys of the manifest's top level, in the documented order. */
    public static final List<String> TOP_KEYS = List.of("machine", "repos");
    /** The keys of one repo, in the documented order. */
    public static final List<String> REPO_KEYS = List.of("name", "guid", "forkOf", "listen", "daemon",
            "listenMode", "listenGroup", "buildkitDeviceEntitlementDisabled",
            "hostPaths", "daemonConfigDir", "daemonDataRoot", "volumeDrivers", "logDrivers",
            // read by `rdc machine setup` (node-agent prepare) to configure the repo's daemon; not the gate's business
            "daemonConfig", "daemonRun", "daemonService");
    private static final java.util.regex.Pattern DRIVER = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:/@-]*");
    private static final java.util.regex.Pattern MODE = java.util.regex.Pattern.compile("0?[0-7]{3}");
    private static final java.util.regex.Pattern GROUP = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,31}");
    /** A systemd unit name: setup passes it to systemctl, so nothing a shell or systemctl could read as more. */
    private static final java.util.regex.Pattern UNIT = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9:_.@-]{0,255}");

    private ManifestLoader() {
    }

    /** Reads the manifest at {@code file}; without {@code machine:} the machine is the host name (the gate's reading). */
    public static ReposManifest load(Path file) {
        return load(file, ManifestLoader::hostName);
    }

    /**
     * Reads the manifest at {@code file}; without {@code machine:} the machine is what {@code machineWhenUnnamed}
     * gives (validated), or null when it gives null.
     */
    public static ReposManifest load(Path file, Supplier<String> machineWhenUnnamed) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new InvalidManifestException("repos manifest " + file + " does not exist: create it or set gate.manifest");
        } catch (IOException e) {
            throw new InvalidManifestException("cannot read repos manifest " + file + ": " + e.getMessage(), e);
        }
        try {
            return parse(bytes, machineWhenUnnamed);
        } catch (InvalidManifestException e) {
            throw new InvalidManifestException("repos manifest " + file + ": " + e.getMessage(), e);
        }
    }

    public static ReposManifest parse(byte[] yaml) {
        return parse(yaml, ManifestLoader::hostName);
    }

    public static ReposManifest parse(byte[] yaml, Supplier<String> machineWhenUnnamed) {
        JsonNode root;
        try {
            root = YamlText.readTree(yaml);
        } catch (IOException e) {
            throw new InvalidManifestException("not valid YAML: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new InvalidManifestException("expected a mapping with 'repos' (and optionally 'machine')");
        }
        unknownKeys(root, TOP_KEYS, "the top level", "");
        String machine;
        try {
            if (root.hasNonNull("machine")) {
                machine = Identifiers.machine(text(root, "machine", ""));
            } else {
                // Same default for gate and agent: without a machine in the manifest, the host name.
                String fallback = machineWhenUnnamed.get();
                machine = fallback == null ? null : Identifiers.machine(fallback);
            }
        } catch (InvalidIdentifierException e) {
            throw new InvalidManifestException("machine: " + e.getMessage()
                    + (root.hasNonNull("machine") ? "" : " (the host name; set machine: in the manifest)"));
        }
        JsonNode repos = root.get("repos");
        if (repos != null && !repos.isNull() && !repos.isArray()) {
            throw new InvalidManifestException("repos must be a list of repos");
        }
        List<RepoEntry> entries = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> guids = new HashSet<>();
        Set<String> listeners = new HashSet<>();
        if (repos != null && repos.isArray()) {
            for (int i = 0; i < repos.size(); i++) {
                String where = "repos[" + i + "]";
                RepoEntry entry = repo(repos.get(i), where);
                if (!names.add(entry.name())) {
                    throw new InvalidManifestException(where + ": repo name " + entry.name() + " appears twice");
                }
                if (!guids.add(entry.guid())) {
                    throw new InvalidManifestException(where + ": GUID " + entry.guid()
                            + " is used by two repos; a fork needs its own GUID (forkOf names the parent)");
                }
                boolean ephemeral = entry.listen().kind() == SocketEndpoint.Kind.TCP && entry.listen().port() == 0;
                if (!ephemeral && !listeners.add(entry.listen().toString())) {
                    throw new InvalidManifestException(where + ": listen " + entry.listen()
                            + " is used by two repos; the socket a request arrives on is the repo's identity");
                }
                entries.add(entry);
            }
        }
        refuseNestedRoots(entries);
        return new ReposManifest(machine, entries);
    }

    /**
     * A {@code hostPaths} root beneath another root, the repo's own or another repo's, is refused: a repo that may
     * bind the outer root can swap the inner one for a symlink to {@code /}, and the gate judges a path by where its
     * root resolves. The same root in two repos is allowed (a shared directory): swapping it needs its parent.
     */
    private static void refuseNestedRoots(List<RepoEntry> entries) {
        for (RepoEntry inner : entries) {
            for (String root : inner.host().hostPaths()) {
                for (RepoEntry outer : entries) {
                    for (String other : outer.host().hostPaths()) {
                        if (root.startsWith(other + "/")) {
                            throw new InvalidManifestException("repos " + inner.name() + ".hostPaths: " + root + " lies beneath "
                                    + (outer == inner ? "its own root " : "repo " + outer.name() + "'s root ") + other
                                    + "; a repo that may bind " + other + " could swap " + root + " for a symlink to /. "
                                    + (outer == inner ? other + " already covers it: drop " + root
                                    : "Name roots that do not nest"));
                        }
                    }
                }
            }
        }
    }

    static String hostName() {
        try {
            String fromKernel = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (!fromKernel.isEmpty()) {
                return fromKernel;
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux: ask the JDK
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return System.getenv().getOrDefault("HOSTNAME", "");
        }
    }

    private static RepoEntry repo(JsonNode node, String where) {
        if (node == null || !node.isObject()) {
            throw new InvalidManifestException(where + " must be a mapping with name, guid, listen and daemon");
        }
        unknownKeys(node, REPO_KEYS, where, where + ".");
        try {
            String name = Identifiers.repoName(text(node, "name", where + "."));
            String guid = Identifiers.repoGuid(text(node, "guid", where + "."));
            String forkOf = node.hasNonNull("forkOf") ? Identifiers.repoGuid(text(node, "forkOf", where + ".")) : null;
            if (guid.equals(forkOf)) {
                throw new InvalidManifestException(where + ".forkOf: a repo cannot be a fork of itself");
            }
            SocketEndpoint listen = SocketEndpoint.parse(text(node, "listen", where + "."), where + ".listen");
            SocketEndpoint daemon = SocketEndpoint.parse(text(node, "daemon", where + "."), where + ".daemon");
            if (daemon.kind() == SocketEndpoint.Kind.TCP && daemon.port() == 0) {
                throw new InvalidManifestException(where + ".daemon: port 0 is only meaningful for a listener");
            }
            if (listen.equals(daemon)) {
                throw new InvalidManifestException(where + ": listen and daemon are the same socket");
            }
            JsonNode bk = node.get("buildkitDeviceEntitlementDisabled");
            if (bk != null && !bk.isNull() && !bk.isBoolean()) {
                throw new InvalidManifestException(where + ".buildkitDeviceEntitlementDisabled must be true or false");
            }
            Integer mode = null;
            String group = null;
            if (node.hasNonNull("listenMode")) {
                String text = text(node, "listenMode", where + ".");
                if (!MODE.matcher(text).matches()) {
                    throw new InvalidManifestException(where + ".listenMode \"" + text
                            + "\" must be octal permission bits written as a string, e.g. \"0660\"");
                }
                mode = Integer.parseInt(text, 8);
            }
            if (node.hasNonNull("listenGroup")) {
                group = text(node, "listenGroup", where + ".");
                if (!GROUP.matcher(group).matches()) {
                    throw new InvalidManifestException(where + ".listenGroup \"" + group + "\" is not a group name");
                }
            }
            if ((mode != null || group != null) && listen.kind() != SocketEndpoint.Kind.UNIX) {
                throw new InvalidManifestException(where + ": listenMode and listenGroup apply to unix sockets only");
            }
            RepoHostAccess host = new RepoHostAccess(hostPaths(node, where), names(node, "volumeDrivers", where),
                    names(node, "logDrivers", where), absolute(node, "daemonConfigDir", where), absolute(node, "daemonDataRoot", where));
            DaemonSetup setup = new DaemonSetup(absolute(node, "daemonConfig", where), absolute(node, "daemonRun", where),
                    unit(node, where));
            return new RepoEntry(name, guid, forkOf, listen, daemon, bk != null && bk.asBoolean(false), mode, group, host, setup);
        } catch (InvalidIdentifierException e) {
            throw new InvalidManifestException(where + ": " + e.getMessage());
        }
    }

    /**
     * {@code hostPaths}: absolute roots, kept as written after Go's path.Clean. {@code /} is refused:
     * it would turn the allowlist back into a denylist.
     */
    private static List<String> hostPaths(JsonNode node, String where) {
        List<String> out = new ArrayList<>();
        for (String p : list(node, "hostPaths", where)) {
            String path = checkedAbsolute(p, where + ".hostPaths");
            if (path.equals("/")) {
                throw new InvalidManifestException(where + ".hostPaths: / would let the repo bind the whole host; name the "
                        + "directories it needs, e.g. /mnt/rediacc/mounts/<guid>");
            }
            out.add(path);
        }
        return out;
    }

    private static List<String> names(JsonNode node, String field, String where) {
        List<String> out = new ArrayList<>();
        for (String n : list(node, field, where)) {
            if (!DRIVER.matcher(n).matches()) {
                throw new InvalidManifestException(where + "." + field + ": \"" + n + "\" is not a driver name");
            }
            out.add(n);
        }
        return out;
    }

    private static List<String> list(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new InvalidManifestException(where + "." + field + " must be a list, e.g. " + field + ": [/srv/data]");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode element : value) {
            if (!element.isTextual()) {
                throw new InvalidManifestException(where + "." + field + " must list strings");
            }
            out.add(element.asText());
        }
        return out;
    }

    private static String absolute(JsonNode node, String field, String where) {
        return node.hasNonNull(field) ? checkedAbsolute(text(node, field, where + "."), where + "." + field) : null;
    }

    private static String checkedAbsolute(String p, String field) {
        if (!p.startsWith("/") || p.indexOf('\0') >= 0) {
            throw new InvalidManifestException(field + ": \"" + p + "\" must be an absolute path");
        }
        return java.nio.file.Path.of(p).normalize().toString();
    }

    private static String text(JsonNode node, String field, String prefix) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new InvalidManifestException(prefix + field + " is missing");
        }
        if (!value.isValueNode() || value.isBoolean()) {
            throw new InvalidManifestException(prefix + field + " must be a string");
        }
        return value.asText();
    }

    private static String unit(JsonNode node, String where) {
        if (!node.hasNonNull("daemonService")) {
            return null;
        }
        String unit = text(node, "daemonService", where + ".");
        if (!UNIT.matcher(unit).matches()) {
            throw new InvalidManifestException(where + ".daemonService \"" + unit
                    + "\" is not a systemd unit name, e.g. rediacc-docker-web.service");
        }
        return unit;
    }

    /** Refuses the first key not in {@code known}, naming where it is and the known key it was probably meant to be. */
    private static void unknownKeys(JsonNode node, List<String> known, String where, String prefix) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                String suggestion = ClosestName.among(key, known).map(k -> "; did you mean '" + k + "'?").orElse("");
                throw new InvalidManifestException("unknown key '" + key + "' at " + where + suggestion
                        + " (known keys" + (prefix.isEmpty() ? "" : " of a repo") + ": " + String.join(", ", known) + ")");
            }
        }
    }
}
