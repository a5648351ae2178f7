package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The gate's decision on every Docker API request of one repo: pure, thread-safe, no I/O. The
 * data plane asks {@link #onHead} first; depending on the answer it streams the request through,
 * buffers the body and asks {@link #onBody}, or fetches the container's stored configuration and
 * asks {@link #onStoredContainer}. Every method fails closed: anything it cannot read exactly is
 * a refusal, never an exception. The rules are listed in docker-gate/POLICY.md.
 */
public final class GatePolicy {

    /** Container names and IDs (or ID prefixes) as the daemon accepts them. */
    private static final Pattern CONTAINER_REF = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

    private final int maxBodyBytes;
    private final HostConfigRules hostConfig;
    private final MountRules mounts;
    private final ContainerBodyRules containers;
    private final ServiceSpecRules services;
    private final PluginRules plugins;

    /** A policy that refuses inspected bodies over {@code maxBodyBytes} (413). */
    public GatePolicy(int maxBodyBytes) {
        this(maxBodyBytes, List.of());
    }

    /**
     * Also refuses binds, mounts and volume devices that reach any of {@code protectedHostPaths}
     * (absolute host paths, e.g. the repo daemons' sockets and /etc/cdi), on top of /dev, /proc and /sys.
     */
    public GatePolicy(int maxBodyBytes, Collection<String> protectedHostPaths) {
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("maxBodyBytes must be positive, got " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
        HostPathRules hostPaths = new HostPathRules(protectedHostPaths);
        this.mounts = new MountRules(hostPaths);
        this.hostConfig = new HostConfigRules(mounts);
        this.containers = new ContainerBodyRules(hostConfig, mounts);
        this.services = new ServiceSpecRules(mounts);
        this.plugins = new PluginRules(hostPaths);
    }

    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /**
     * Classifies a request from its head alone. Refuses ambiguous framing (Content-Length together
     * with Transfer-Encoding, or conflicting Content-Lengths), BuildKit (unless the repo's daemon has
     * its device entitlement disabled), swarm membership changes, plugin create, and a container
     * start that carries a body. Starts and restarts of an existing container are checked against
     * the stored configuration; {@code unpause} is not a start (the processes already hold their
     * devices, and revocation takes effect at the next start).
     */
    public HeadVerdict onHead(RequestHead head, RepoIdentity repo) {
        try {
            return classify(head, repo);
        } catch (PolicyRefusal refused) {
            return new HeadVerdict.Refuse(RefusalMessages.forMachine(refused.refusal(), repo));
        } catch (RuntimeException unexpected) {
            return new HeadVerdict.Refuse(inspectionFailed(unexpected));
        }
    }

    /**
     * Judges a buffered body of an endpoint {@link #onHead} answered with {@link HeadVerdict.InspectBody}.
     * An empty body carries no hardware and is allowed; for any other head the verdict repeats what
     * {@code onHead} decided (a start is never judged by its body).
     */
    public Verdict onBody(RequestHead head, byte[] body, RepoIdentity repo, GrantLookup grants) {
        try {
            HeadVerdict atHead = classify(head, repo);
            if (atHead instanceof HeadVerdict.Refuse refuse) {
                return new Verdict.Deny(RefusalMessages.forMachine(refuse.refusal(), repo));
            }
            if (atHead instanceof HeadVerdict.Pass) {
                return new Verdict.Allow();
            }
            if (atHead instanceof HeadVerdict.InspectStoredContainer) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_START_BODY, RefusalMessages.startWithBody());
            }
            byte[] bytes = body == null ? new byte[0] : body;
            if (bytes.length > maxBodyBytes) {
                throw tooLarge(bytes.length);
            }
            if (bytes.length == 0) {
                return new Verdict.Allow();
            }
            DockerRoute route = DockerRoute.classify(head.method(), head.uri());
            JsonValue json = GoJsonReader.read(bytes, GoJsonReader.Duplicates.REFUSE_FOLDED);
            Set<String> requested = new LinkedHashSet<>();
            switch (route.kind()) {
                case CONTAINER_CREATE -> containers.create(requireObject(json), requested);
                case CONTAINER_UPDATE -> containers.update(requireObject(json));
                case EXEC_CREATE -> containers.execCreate(requireObject(json));
                case VOLUME_CREATE -> containers.volumeCreate(requireObject(json));
                case SERVICE_CREATE, SERVICE_UPDATE -> services.check(requireObject(json));
                case PLUGIN_PULL, PLUGIN_UPGRADE -> plugins.privileges(json);
                case PLUGIN_SET -> plugins.settings(json);
                default -> throw new IllegalStateException("no body rules for " + route.kind());
            }
            GrantRules.check(requested, repo, grants, "");
            return new Verdict.Allow();
        } catch (PolicyRefusal refused) {
            return new Verdict.Deny(RefusalMessages.forMachine(refused.refusal(), repo));
        } catch (RuntimeException unexpected) {
            return new Verdict.Deny(inspectionFailed(unexpected));
        }
    }

    /**
     * Judges the start of an existing container from the daemon's {@code GET /containers/{id}/json}
     * answer (call it only with a 200 body; on 404, relay the daemon's answer). Refuses when the
     * stored HostConfig names a CDI device this repo no longer holds, or carries any refused
     * hardware path (e.g. a container created before the gate); refuses what it cannot read.
     */
    public Verdict onStoredContainer(byte[] containerInspectJson, RepoIdentity repo, GrantLookup grants) {
        try {
            if (containerInspectJson == null || containerInspectJson.length == 0) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE, "the daemon's answer was empty");
            }
            JsonValue json = GoJsonReader.read(containerInspectJson, GoJsonReader.Duplicates.REFUSE_EXACT);
            if (!(json instanceof JsonObject container)) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE, "the daemon's answer is " + json.describe() + ", not an object");
            }
            JsonObject hc = GoJsonTypes.object(container.field("HostConfig", "HostConfig"), "HostConfig");
            if (hc == null) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE, "the daemon's answer has no HostConfig");
            }
            Set<String> requested = new LinkedHashSet<>();
            hostConfig.check(hc, "HostConfig", HostConfigRules.Source.STORED, requested);
            // The daemon's resolved mount points also show binds inherited through VolumesFrom.
            mounts.mounts(container.field("Mounts", "Mounts"), "Mounts");
            GrantRules.check(requested, repo, grants,
                    " (this container was created with that device; start it again once the grant is back, or recreate it without the device)");
            return new Verdict.Allow();
        } catch (PolicyRefusal refused) {
            Refusal r = RefusalMessages.forMachine(refused.refusal(), repo);
            if (r.status() == 400) {
                return new Verdict.Deny(new Refusal(403, RefusalMessages.RULE_STORED_UNREADABLE, r.device(),
                        RefusalMessages.storedUnreadable(r.message())));
            }
            if (r.rule().equals(RefusalMessages.RULE_NOT_GRANTED) || r.rule().equals(RefusalMessages.RULE_GRANTS_NOT_LOADED)) {
                return new Verdict.Deny(r);
            }
            return new Verdict.Deny(new Refusal(r.status(), r.rule(), r.device(), RefusalMessages.storedPrefix() + r.message()));
        } catch (RuntimeException unexpected) {
            return new Verdict.Deny(new Refusal(403, RefusalMessages.RULE_STORED_UNREADABLE, null,
                    RefusalMessages.storedUnreadable(String.valueOf(unexpected.getMessage()))));
        }
    }

    private HeadVerdict classify(RequestHead head, RepoIdentity repo) {
        DockerRoute route = DockerRoute.classify(head.method(), head.uri());
        long contentLength = framing(head);
        boolean declaresBody = contentLength > 0 || !head.header("transfer-encoding").isEmpty();
        if (!repo.buildkitDeviceEntitlementDisabled()) {
            refuseBuildKit(head, route);
        }
        switch (route.kind()) {
            case SWARM_INIT -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_SWARM, null, RefusalMessages.swarm("init"));
            case SWARM_JOIN -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_SWARM, null, RefusalMessages.swarm("join"));
            case PLUGIN_CREATE -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_PLUGIN_CREATE, null, RefusalMessages.pluginCreate());
            case CONTAINER_START -> {
                if (declaresBody) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_START_BODY, RefusalMessages.startWithBody());
                }
                return storedStart(route, "start");
            }
            case CONTAINER_RESTART -> {
                return storedStart(route, "restart");
            }
            default -> {
                if (route.kind().bodyInspected()) {
                    if (contentLength > maxBodyBytes) {
                        throw tooLarge(contentLength);
                    }
                    return new HeadVerdict.InspectBody(route.kind().routeName());
                }
                return new HeadVerdict.Pass();
            }
        }
    }

    /**
     * The declared Content-Length, or -1. Go's server accepts repeated identical Content-Length
     * headers and nothing else; a request with both Content-Length and Transfer-Encoding is the
     * classic smuggling shape, so it is refused on every endpoint.
     */
    private static long framing(RequestHead head) {
        List<String> te = head.header("transfer-encoding");
        List<String> cl = head.header("content-length");
        if (!te.isEmpty() && !cl.isEmpty()) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_FRAMING,
                    "a request with both Content-Length and Transfer-Encoding is ambiguous; send one of them");
        }
        long length = -1;
        for (String value : cl) {
            String v = value == null ? "" : value.trim();
            if (v.isEmpty() || v.length() > 18 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_FRAMING, "Content-Length \"" + value + "\" is not a byte count");
            }
            long parsed = Long.parseLong(v);
            if (length >= 0 && parsed != length) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_FRAMING,
                        "conflicting Content-Length headers (" + length + " and " + parsed + ")");
            }
            length = parsed;
        }
        return length;
    }

    /**
     * BuildKit reaches the daemon through {@code /session}, {@code /grpc} (HTTP/2 over an
     * {@code Upgrade: h2c}) and {@code POST /build?version=2}; Go's form parsing would also read
     * {@code version} from a form-encoded body.
     */
    private static void refuseBuildKit(RequestHead head, DockerRoute route) {
        for (String upgrade : head.header("upgrade")) {
            for (String token : upgrade.split(",")) {
                if (token.trim().equalsIgnoreCase("h2c")) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null, RefusalMessages.buildkit("Upgrade: h2c"));
                }
            }
        }
        switch (route.kind()) {
            case SESSION -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null, RefusalMessages.buildkit("/session"));
            case GRPC -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null, RefusalMessages.buildkit("/grpc"));
            case BUILD -> {
                if (route.requestTarget().queryValues("version").contains("2")) {
                    throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null, RefusalMessages.buildkit("build version=2"));
                }
                for (String contentType : head.header("content-type")) {
                    String media = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
                    if (media.equals("application/x-www-form-urlencoded")) {
                        throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null,
                                RefusalMessages.buildkit("a form-encoded build request, whose body could select it"));
                    }
                }
            }
            default -> {
                // not BuildKit
            }
        }
    }

    private static HeadVerdict.InspectStoredContainer storedStart(DockerRoute route, String action) {
        return new HeadVerdict.InspectStoredContainer(containerRef(route.target()),
                DockerRoute.apiVersion(route.requestTarget().path()), action, route.requestTarget().rawQuery());
    }

    private static String containerRef(String target) {
        if (target == null || !CONTAINER_REF.matcher(target).matches()) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_REQUEST_TARGET,
                    "\"" + target + "\" is not a container name or ID (letters, digits, '_', '.', '-')");
        }
        return target;
    }

    private static JsonObject requireObject(JsonValue json) {
        if (json instanceof JsonObject object) {
            return object;
        }
        throw PolicyRefusal.badRequest(RefusalMessages.RULE_FIELD_TYPE, "the body must be a JSON object, got " + json.describe());
    }

    private PolicyRefusal tooLarge(long size) {
        return new PolicyRefusal(new Refusal(413, RefusalMessages.RULE_TOO_LARGE, null, RefusalMessages.tooLarge(size, maxBodyBytes)));
    }

    private static Refusal inspectionFailed(RuntimeException e) {
        return new Refusal(400, "inspection-failed", null,
                "the gate could not inspect this request (" + e.getClass().getSimpleName() + "), so it refuses it");
    }
}
