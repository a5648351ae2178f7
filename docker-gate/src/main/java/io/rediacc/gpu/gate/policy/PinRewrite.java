package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonBool;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;
import io.rediacc.gpu.gate.policy.JsonValue.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rewrites an admitted create body so the daemon mounts pins, not paths (issue 30): the daemon
 * mounts a bind source again by path at every start, restart, daemon boot and {@code docker cp},
 * and the repo controls every directory under its {@code hostPaths}, so a path checked once can
 * be swapped for a symlink afterwards. Each host path is pinned ({@link BindPins}) and:
 * <ul>
 *   <li>{@code HostConfig.Binds} entries with an absolute source become {@code HostConfig.Mounts}
 *       entries of type bind with the pin as source (read-only and propagation kept): the daemon
 *       re-creates a missing {@code -v} source as an empty directory at every start, following
 *       links, while a missing {@code Mounts} source fails the start;</li>
 *   <li>{@code Mounts} of type bind get the pin as source, {@code CreateMountpoint} dropped (the gate
 *       made missing directories itself);</li>
 *   <li>a local volume bound to a host path ({@code o=bind}/{@code rbind}) in {@code volumes/create}
 *       or inline ({@code Mounts} type volume) gets the pin as {@code device};</li>
 *   <li>the container or volume is labelled with the pins' token and each bind's original path
 *       ({@code docker inspect} still says where a bind came from). A request may not set the
 *       gate's labels itself.</li>
 * </ul>
 * The body was already admitted by the policy, read with every folded duplicate key refused, so
 * each field lookup here is the one field Go decodes.
 */
final class PinRewrite {

    /** Modes of a {@code -v} spec (moby {@code linux_parser.go}) and what each becomes in a bind {@code Mount}. */
    private static final Set<String> PROPAGATION = Set.of("private", "rprivate", "shared", "rshared", "slave", "rslave");
    /** SELinux relabelling and macOS consistency flags: no meaning for a pin (relabelling a pin would relabel the source). */
    private static final Set<String> IGNORED_MODES = Set.of("z", "Z", "consistent", "cached", "delegated");

    private final BindPins pins;
    private final RepoIdentity repo;
    /** The request's view of the repo's roots (resolved at most once for all its binds); null: each pin resolves them. */
    private final RepoRoots roots;
    private String token;
    private final List<String> originals = new ArrayList<>();

    private PinRewrite(BindPins pins, RepoIdentity repo, RepoRoots roots) {
        this.pins = pins;
        this.repo = repo;
        this.roots = roots;
    }

    /** The rewritten body and the token of its pins (null, and the body unchanged, when nothing was pinned). */
    record Result(byte[] body, String token) {
    }

    static Result containerCreate(byte[] body, RepoIdentity repo, BindPins pins) {
        return containerCreate(GoJsonReader.read(body, GoJsonReader.Duplicates.REFUSE_FOLDED), body, repo, pins, null);
    }

    /**
     * {@code body} already read ({@code json}, folded duplicates refused): the tree the policy judged, not read
     * again; {@code roots}: the request's view of the repo's roots (null: each pin resolves them).
     */
    static Result containerCreate(JsonValue json, byte[] body, RepoIdentity repo, BindPins pins, RepoRoots roots) {
        PinRewrite rewrite = new PinRewrite(pins, repo, roots);
        JsonObject root = (JsonObject) json;
        JsonObject labels = GoJsonTypes.object(root.field("Labels", "Labels"), "Labels");
        refuseGateLabels(labels, "Labels");
        JsonObject hc = GoJsonTypes.object(root.field("HostConfig", "HostConfig"), "HostConfig");
        if (hc == null) {
            return new Result(body, null);
        }
        try {
            List<JsonValue> keptBinds = new ArrayList<>();
            List<JsonValue> mounts = new ArrayList<>();
            boolean bindsChanged = false;
            JsonValue bindsValue = hc.field("Binds", "HostConfig.Binds");
            for (String spec : GoJsonTypes.strings(bindsValue, "HostConfig.Binds")) {
                JsonObject mount = rewrite.bind(spec);
                if (mount == null) {
                    keptBinds.add(new JsonString(spec));
                } else {
                    mounts.add(mount);
                    bindsChanged = true;
                }
            }
            List<JsonValue> given = GoJsonTypes.array(hc.field("Mounts", "HostConfig.Mounts"), "HostConfig.Mounts");
            List<JsonValue> rewritten = new ArrayList<>();
            boolean mountsChanged = false;
            for (int i = 0; i < given.size(); i++) {
                JsonValue m = given.get(i);
                JsonValue r = m instanceof JsonObject o ? rewrite.mount(o, "HostConfig.Mounts[" + i + "]") : m;
                mountsChanged |= r != m;
                rewritten.add(r);
            }
            if (rewrite.token == null) {
                return new Result(body, null);
            }
            rewritten.addAll(mounts);
            JsonObject newHc = hc;
            if (bindsChanged) {
                newHc = with(hc, "Binds", keptBinds.isEmpty() ? JsonValue.JsonNull.INSTANCE : new JsonArray(keptBinds),
                        "Mounts", new JsonArray(rewritten));
            } else if (mountsChanged) {
                newHc = with(hc, "Mounts", new JsonArray(rewritten));
            }
            JsonObject newRoot = with(root, "HostConfig", newHc, "Labels", rewrite.labels(labels));
            return new Result(JsonWriter.write(newRoot), rewrite.token);
        } catch (RuntimeException e) {
            rewrite.abandon();
            throw e;
        }
    }

    static Result volumeCreate(byte[] body, RepoIdentity repo, BindPins pins) {
        return volumeCreate(GoJsonReader.read(body, GoJsonReader.Duplicates.REFUSE_FOLDED), body, repo, pins, null);
    }

    static Result volumeCreate(JsonValue json, byte[] body, RepoIdentity repo, BindPins pins, RepoRoots roots) {
        PinRewrite rewrite = new PinRewrite(pins, repo, roots);
        JsonObject root = (JsonObject) json;
        JsonObject labels = GoJsonTypes.object(root.field("Labels", "Labels"), "Labels");
        refuseGateLabels(labels, "Labels");
        String driver = GoJsonTypes.string(root.field("Driver", "Driver"), "Driver");
        JsonObject opts = GoJsonTypes.object(root.field("DriverOpts", "DriverOpts"), "DriverOpts");
        try {
            JsonObject newOpts = rewrite.volumeOptions(driver, opts, "DriverOpts");
            if (newOpts == opts) {
                return new Result(body, null);
            }
            JsonObject newRoot = with(root, "DriverOpts", newOpts, "Labels", rewrite.labels(labels));
            return new Result(JsonWriter.write(newRoot), rewrite.token);
        } catch (RuntimeException e) {
            rewrite.abandon();
            throw e;
        }
    }

    /** A {@code Binds} entry: null when it is no host path (a volume, an anonymous volume), else the bind {@code Mount} of its pin. */
    private JsonObject bind(String spec) {
        String[] parts = spec.split(":", 4);
        if (parts.length < 2 || !parts[0].startsWith("/")) {
            return null;
        }
        if (parts.length == 4) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_HOST_PATH, RefusalText.of("bind \"" + spec + "\" has more than three parts",
                    "write host-path:container-path[:options]"));
        }
        boolean readOnly = false;
        String propagation = null;
        if (parts.length == 3) {
            for (String mode : parts[2].split(",")) {
                if (mode.equals("ro")) {
                    readOnly = true;
                } else if (mode.equals("rw")) {
                    readOnly = false;
                } else if (PROPAGATION.contains(mode)) {
                    propagation = mode;
                } else if (!IGNORED_MODES.contains(mode)) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_HOST_PATH, RefusalText.of("bind \"" + spec + "\" has the option \""
                            + mode + "\", which a bind of a host path does not take", "use ro, rw or a propagation mode"));
                }
            }
        }
        // The daemon creates a missing -v source: so does the gate, beneath the root.
        String pin = pinPath(HostPathRules.normalize(parts[0]), BindPins.Owner.CONTAINER, true);
        JsonObject mount = new JsonObject();
        mount.add(new Member("Type", new JsonString("bind")));
        mount.add(new Member("Source", new JsonString(pin)));
        mount.add(new Member("Target", new JsonString(parts[1])));
        if (readOnly) {
            mount.add(new Member("ReadOnly", new JsonBool(true)));
        }
        if (propagation != null) {
            JsonObject bindOptions = new JsonObject();
            bindOptions.add(new Member("Propagation", new JsonString(propagation)));
            mount.add(new Member("BindOptions", bindOptions));
        }
        return mount;
    }

    /** A {@code Mounts} entry: a bind gets its pin as source, an inline local bind volume its pin as device; else unchanged. */
    private JsonValue mount(JsonObject mount, String at) {
        String type = GoJsonTypes.string(mount.field("Type", at + ".Type"), at + ".Type");
        if (type.equals("bind")) {
            String source = GoJsonTypes.string(mount.field("Source", at + ".Source"), at + ".Source");
            JsonObject bindOptions = GoJsonTypes.object(mount.field("BindOptions", at + ".BindOptions"), at + ".BindOptions");
            boolean create = false;
            if (bindOptions != null) {
                JsonValue c = bindOptions.field("CreateMountpoint", at + ".BindOptions.CreateMountpoint");
                create = c instanceof JsonBool b && b.value();
            }
            String pin = pinPath(HostPathRules.normalize(source), BindPins.Owner.CONTAINER, create);
            JsonObject out = with(mount, "Source", new JsonString(pin));
            if (bindOptions != null) {
                out = with(out, "BindOptions", with(bindOptions, "CreateMountpoint", new JsonBool(false)));
            }
            return out;
        }
        if (type.equals("volume")) {
            JsonObject volumeOptions = GoJsonTypes.object(mount.field("VolumeOptions", at + ".VolumeOptions"), at + ".VolumeOptions");
            if (volumeOptions == null) {
                return mount;
            }
            String vpath = at + ".VolumeOptions.DriverConfig";
            JsonObject driverConfig = GoJsonTypes.object(volumeOptions.field("DriverConfig", vpath), vpath);
            JsonObject labels = GoJsonTypes.object(volumeOptions.field("Labels", at + ".VolumeOptions.Labels"), at + ".VolumeOptions.Labels");
            refuseGateLabels(labels, at + ".VolumeOptions.Labels");
            if (driverConfig == null) {
                return mount;
            }
            String driver = GoJsonTypes.string(driverConfig.field("Name", vpath + ".Name"), vpath + ".Name");
            JsonObject opts = GoJsonTypes.object(driverConfig.field("Options", vpath + ".Options"), vpath + ".Options");
            int before = originals.size();
            JsonObject newOpts = volumeOptions(driver, opts, vpath + ".Options");
            if (newOpts == opts) {
                return mount;
            }
            List<Member> labelMembers = new ArrayList<>(labels == null ? List.of() : labels.members());
            labelMembers.add(new Member(BindPins.TOKEN_LABEL, new JsonString(token)));
            labelMembers.add(new Member(BindPins.BIND_LABEL_PREFIX + "device", new JsonString(originals.get(before))));
            JsonObject volumeLabels = JsonObject.of(labelMembers);
            JsonObject newVolumeOptions = with(volumeOptions, "DriverConfig", with(driverConfig, "Options", newOpts));
            newVolumeOptions = with(newVolumeOptions, "Labels", volumeLabels);
            return with(mount, "VolumeOptions", newVolumeOptions);
        }
        return mount;
    }

    /** Local volume options binding a host path: the same options with the pin as {@code device}; else the same object. */
    private JsonObject volumeOptions(String driver, JsonObject opts, String path) {
        if (opts == null || !MountRules.isLocal(driver)) {
            return opts;
        }
        Map<String, String> values = GoJsonTypes.stringMap(opts, path);
        String o = values.get("o");
        boolean bind = o != null && List.of(o.split(",", -1)).stream().anyMatch(MountRules.BIND_FLAGS::contains);
        if (!bind) {
            return opts;
        }
        String device = values.getOrDefault("device", "");
        // The policy admitted the device (an absolute path under hostPaths); the daemon would hand it to mount(2) raw.
        String pin = pinPath(HostPathRules.normalize(device), BindPins.Owner.VOLUME, false);
        return with(opts, "device", new JsonString(pin));
    }

    private String pinPath(String hostPath, BindPins.Owner owner, boolean createMissing) {
        if (token == null) {
            token = pins.newToken();
        }
        try {
            String pin = roots == null ? pins.pin(repo, token, owner, hostPath, createMissing)
                    : pins.pin(repo, token, owner, hostPath, createMissing, roots);
            originals.add(hostPath);
            return pin;
        } catch (BindPins.Refused refused) {
            throw refused.status() >= 500
                    ? new PolicyRefusal(new Refusal(refused.status(), RefusalMessages.RULE_HOST_PATH, hostPath,
                            "the gate could not pin bind source " + hostPath + ": " + refused.getMessage(), RefusalMessages.GATE_FAULT))
                    : PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, hostPath, new RefusalText(
                            "bind of host path " + hostPath + " is refused: " + refused.getMessage(),
                            "bind a directory under the repo's hostPaths that reaches no protected path"));
        }
    }

    private JsonObject labels(JsonObject given) {
        List<Member> out = new ArrayList<>(given == null ? List.of() : given.members());
        out.add(new Member(BindPins.TOKEN_LABEL, new JsonString(token)));
        for (int i = 0; i < originals.size(); i++) {
            out.add(new Member(BindPins.BIND_LABEL_PREFIX + i, new JsonString(originals.get(i))));
        }
        return JsonObject.of(out);
    }

    private void abandon() {
        if (token != null) {
            pins.release(repo, token);
        }
    }

    /** Labels are a Go map: keys are exact, so the gate's prefix is compared exactly. */
    private static void refuseGateLabels(JsonObject labels, String path) {
        if (labels == null) {
            return;
        }
        for (Member m : labels.members()) {
            if (m.key().startsWith(BindPins.LABEL_PREFIX)) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH, m.key(), RefusalText.of("label " + m.key() + " in " + path
                        + " is refused: labels under " + BindPins.LABEL_PREFIX + " are the gate's own (it records pinned binds"
                        + " with them)", "choose another label name"));
            }
        }
    }

    /** {@code o} with the member Go decodes as {@code field} replaced by {@code value} (its key kept), or appended. */
    private static JsonObject with(JsonObject o, String field, JsonValue value) {
        return with(o, field, value, null, null);
    }

    /**
     * {@code o} with two fields replaced (or appended, in this order) in one copy. The members to replace
     * are found through the object's own index of folded keys (the same member {@link JsonObject#field}
     * reads), not by comparing every key with each field (issue 34).
     */
    private static JsonObject with(JsonObject o, String field, JsonValue value, String field2, JsonValue value2) {
        Member first = o.member(field);
        Member second = field2 == null ? null : o.member(field2);
        List<Member> out = new ArrayList<>(o.members().size() + 2);
        for (Member m : o.members()) {
            if (m == first) {
                out.add(new Member(m.key(), value));
            } else if (m == second) {
                out.add(new Member(m.key(), value2));
            } else {
                out.add(m);
            }
        }
        if (first == null) {
            out.add(new Member(field, value));
        }
        if (field2 != null && second == null) {
            out.add(new Member(field2, value2));
        }
        return JsonObject.of(out);
    }
}
