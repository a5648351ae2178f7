package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
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
    private final HostPathRules hostPaths;
    /** Where admitted host paths are pinned; null only where a test judges bodies without pinning. */
    private final BindPins pins;

    /**
     * The gate's policy: refuses inspected bodies over {@code maxBodyBytes} (413), and lets a repo
     * reach the host only as {@code hostAccess} (built from the repos manifest by the gate's
     * start-up) allows.
     */
    public GatePolicy(int maxBodyBytes, HostAccess hostAccess) {
        this(maxBodyBytes, hostAccess, null);
    }

    /**
     * The policy as the gate runs it: host paths the policy admits are pinned in {@code pins}
     * ({@link #pin}), and stored containers and existing volumes may bind only pins.
     */
    public GatePolicy(int maxBodyBytes, HostAccess hostAccess, BindPins pins) {
        this.pins = pins;
        if (maxBodyBytes <= 0) {
            throw new IllegalArgumentException("maxBodyBytes must be positive, got " + maxBodyBytes);
        }
        this.maxBodyBytes = maxBodyBytes;
        this.hostPaths = new HostPathRules(java.util.Objects.requireNonNull(hostAccess, "hostAccess"));
        this.mounts = new MountRules();
        this.hostConfig = new HostConfigRules(mounts);
        this.containers = new ContainerBodyRules(hostConfig, mounts);
        this.services = new ServiceSpecRules(mounts);
    }

    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /**
     * A buffered request body and its JSON tree (Go's reading, folded duplicate keys refused), read at
     * most once: the judgement ({@link #onBody}) and the pin step ({@link #pin}) of one create share
     * it instead of each parsing the body (issue 34). The tree is only read after it is built.
     */
    public static final class Body {
        private final byte[] bytes;
        private JsonValue json;
        /** The repo's roots as the judgement resolved them, for the pin step of the same request. */
        private RepoRoots roots;

        public Body(byte[] bytes) {
            this.bytes = bytes == null ? new byte[0] : bytes;
        }

        public byte[] bytes() {
            return bytes;
        }

        JsonValue json() {
            if (json == null) {
                json = GoJsonReader.read(bytes, GoJsonReader.Duplicates.REFUSE_FOLDED);
            }
            return json;
        }
    }

    /**
     * Classifies a request from its head alone. Refuses ambiguous framing (Content-Length together
     * with Transfer-Encoding, or conflicting Content-Lengths), BuildKit (unless the repo's daemon has
     * its device entitlement disabled), swarm membership changes, every plugin management endpoint, and a container
     * start that carries a body. Starts and restarts of an existing container are checked against
     * the stored configuration; {@code unpause} is not a start (the processes already hold their
     * devices, and revocation takes effect at the next start).
     */
    public HeadVerdict onHead(RequestHead head, RepoIdentity repo) {
        return onHead(head, repo, null);
    }

    /**
     * As {@link #onHead(RequestHead, RepoIdentity)}, with the API versions the repo's daemon serves
     * ({@link GrantLookup#apiVersions}) bounding the request's version prefix.
     */
    public HeadVerdict onHead(RequestHead head, RepoIdentity repo, GrantLookup grants) {
        try {
            return classify(head, repo, grants);
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
        return onBody(head, new Body(body), repo, grants);
    }

    /** {@link #onBody(RequestHead, byte[], RepoIdentity, GrantLookup)} of a body whose tree {@link #pin} reuses. */
    public Verdict onBody(RequestHead head, Body body, RepoIdentity repo, GrantLookup grants) {
        try {
            DockerRoute route = DockerRoute.classify(head.method(), head.uri());
            HeadVerdict atHead = classify(head, route, repo, grants);
            if (atHead instanceof HeadVerdict.Refuse refuse) {
                return new Verdict.Deny(RefusalMessages.forMachine(refuse.refusal(), repo));
            }
            if (atHead instanceof HeadVerdict.Pass) {
                return new Verdict.Allow();
            }
            if (atHead instanceof HeadVerdict.InspectStoredContainer stored && !stored.action().equals("update")) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_START_BODY, RefusalMessages.startWithBody());
            }
            DockerRoute.Kind kind = route.kind();
            switch (kind) {
                case CONTAINER_CREATE -> GrantRules.requireFitDaemon(repo, grants, "container create");
                case CONTAINER_UPDATE -> GrantRules.requireFitDaemon(repo, grants, "container update");
                case EXEC_CREATE -> GrantRules.requireFitDaemon(repo, grants, "docker exec");
                default -> {
                    // volumes and services are judged by their own rules
                }
            }
            byte[] bytes = body.bytes();
            if (bytes.length > maxBodyBytes) {
                throw tooLarge(bytes.length);
            }
            if (bytes.length == 0) {
                return new Verdict.Allow();
            }
            JsonValue json = body.json();
            Set<String> requested = new LinkedHashSet<>();
            HostPathRules.Reach reach = hostPaths.reach(repo);
            body.roots = reach.roots();
            switch (route.kind()) {
                case CONTAINER_CREATE -> containers.create(requireObject(json), requested, reach);
                case CONTAINER_UPDATE -> containers.update(requireObject(json));
                case EXEC_CREATE -> containers.execCreate(requireObject(json));
                case VOLUME_CREATE -> containers.volumeCreate(requireObject(json), reach);
                case SERVICE_CREATE, SERVICE_UPDATE -> services.check(requireObject(json), reach);
                default -> throw new IllegalStateException("no body rules for " + route.kind());
            }
            GrantRules.check(requested, repo, grants, "");
            return afterVolumes(reach);
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
            GrantRules.requireFitDaemon(repo, grants, "this request (a start, restart, docker cp, export, commit or update of a container)");
        } catch (PolicyRefusal refused) {
            return new Verdict.Deny(RefusalMessages.forMachine(refused.refusal(), repo));
        }
        try {
            if (containerInspectJson == null || containerInspectJson.length == 0) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE, new RefusalText("the daemon's answer was empty", RefusalMessages.RECREATE));
            }
            JsonValue json = GoJsonReader.read(containerInspectJson, GoJsonReader.Duplicates.REFUSE_EXACT);
            if (!(json instanceof JsonObject container)) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE,
                        new RefusalText("the daemon's answer is " + json.describe() + ", not an object", RefusalMessages.RECREATE));
            }
            JsonObject hc = GoJsonTypes.object(container.field("HostConfig", "HostConfig"), "HostConfig");
            if (hc == null) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_UNREADABLE, new RefusalText("the daemon's answer has no HostConfig", RefusalMessages.RECREATE));
            }
            Set<String> requested = new LinkedHashSet<>();
            HostPathRules.Reach reach = hostPaths.reach(repo);
            reach.pinDirectory = pins == null ? null : pins.pinDirectory(repo);
            hostConfig.check(hc, "HostConfig", HostConfigRules.Source.STORED, requested, reach);
            // The daemon's resolved mount points also show binds inherited through VolumesFrom.
            mounts.mounts(container.field("Mounts", "Mounts"), "Mounts", true, reach);
            GrantRules.check(requested, repo, grants,
                    " (this container was created with that device; start it again once the grant is back, or recreate it without the device)");
            return afterVolumes(reach);
        } catch (PolicyRefusal refused) {
            Refusal r = RefusalMessages.forMachine(refused.refusal(), repo);
            if (r.status() == 400) {
                return new Verdict.Deny(new Refusal(403, RefusalMessages.RULE_STORED_UNREADABLE, r.device(),
                        RefusalMessages.storedUnreadable(r.message())));
            }
            if (r.rule().equals(RefusalMessages.RULE_NOT_GRANTED) || r.rule().equals(RefusalMessages.RULE_GRANTS_NOT_LOADED)) {
                return new Verdict.Deny(r);
            }
            return new Verdict.Deny(new Refusal(r.status(), r.rule(), r.device(), RefusalMessages.storedPrefix() + r.message(), r.fix()));
        } catch (RuntimeException unexpected) {
            return new Verdict.Deny(new Refusal(403, RefusalMessages.RULE_STORED_UNREADABLE, null,
                    RefusalMessages.storedUnreadable(String.valueOf(unexpected.getMessage()))));
        }
    }

    /**
     * Judges the named volumes a request uses, from the daemon's {@code GET /volumes/{name}} answers
     * (after {@link Verdict.InspectVolumes}). A volume that does not exist (404) will be created
     * without options; an existing one must be one the gate would have let this repo create: its
     * driver built in or listed for the repo, and a local volume's options allowed. Any other
     * answer is a refusal (fail closed).
     */
    public Verdict onVolumes(java.util.List<StoredVolume> volumes, RepoIdentity repo) {
        try {
            HostPathRules.Reach reach = hostPaths.reach(repo);
            reach.pinDirectory = pins == null ? null : pins.pinDirectory(repo);
            for (StoredVolume volume : volumes) {
                if (volume.status() == 404) {
                    continue;
                }
                if (volume.status() != 200 || volume.body() == null || volume.body().length == 0) {
                    return new Verdict.Deny(new Refusal(502, RefusalMessages.RULE_VOLUME_UNREADABLE, volume.name(),
                            "the gate could not read volume " + volume.name() + " from the Docker daemon of repo " + repo.name()
                                    + " (it answered " + volume.status() + ") to check how it is backed, so it refuses the request",
                            "retry once the Docker daemon of repo " + repo.name() + " answers GET /volumes/" + volume.name()));
                }
                try {
                    VolumeBacking backing = volume.backing() != null ? volume.backing()
                            : VolumeBacking.read(volume.name(), volume.body());
                    mounts.volumeDriver(backing.driver(), "its Driver", reach);
                    mounts.volumeDriverOptions(backing.driver(), backing.options(), "its Options", reach);
                } catch (PolicyRefusal refused) {
                    Refusal r = refused.refusal();
                    return new Verdict.Deny(new Refusal(r.status() == 400 ? 502 : r.status(),
                            r.status() == 400 ? RefusalMessages.RULE_VOLUME_UNREADABLE : r.rule(), r.device(),
                            RefusalMessages.existingVolume(volume.name(), r)));
                }
            }
            return new Verdict.Allow();
        } catch (RuntimeException unexpected) {
            return new Verdict.Deny(inspectionFailed(unexpected));
        }
    }

    /** {@link #removesVolumes}: any of the daemon's volumes (no volume is named so: names begin with a letter or digit). */
    public static final String ALL_VOLUMES = "*";

    /**
     * Which of the daemon's volumes a request may remove, so the data plane forgets their kept answers before the
     * daemon acts (issue 34): the name for {@code DELETE /volumes/{name}}, {@link #ALL_VOLUMES} for a prune and for a
     * container's removal (it may take the container's anonymous volumes) or a target that cannot be read, else null.
     */
    public String removesVolumes(RequestHead head) {
        DockerRoute route;
        try {
            route = DockerRoute.classify(head.method(), head.uri());
        } catch (RuntimeException unreadable) {
            return ALL_VOLUMES;
        }
        String path = route.path();
        if ("DELETE".equals(head.method()) && path.startsWith("/volumes/") && path.length() > "/volumes/".length()) {
            return path.substring("/volumes/".length());
        }
        if (("POST".equals(head.method()) && path.equals("/volumes/prune"))
                || ("DELETE".equals(head.method()) && path.startsWith("/containers/"))) {
            return ALL_VOLUMES;
        }
        return null;
    }

    /**
     * Whether an update body {@link #onBody} admitted sets a restart policy: the daemon will then
     * start the container by itself, so the container is judged like a start ({@link #onStoredContainer}).
     */
    public boolean updateSetsRestartPolicy(byte[] body) {
        if (body == null || body.length == 0) {
            return false;
        }
        try {
            return containers.update(requireObject(GoJsonReader.read(body, GoJsonReader.Duplicates.REFUSE_FOLDED)));
        } catch (RuntimeException refusedOrUnreadable) {
            return true; // fail closed: judge the container
        }
    }

    /** An admitted body as it goes to the daemon: rewritten to mount pins ({@code token} names them), or refused. */
    public record Pinned(byte[] body, String token, Refusal refusal) {
    }

    /** Whether {@link #pin} may rewrite this request's body (a container or volume create, with pinning on). */
    public boolean pinsBody(RequestHead head) {
        if (pins == null) {
            return false;
        }
        DockerRoute.Kind kind = DockerRoute.classify(head.method(), head.uri()).kind();
        return kind == DockerRoute.Kind.CONTAINER_CREATE || kind == DockerRoute.Kind.VOLUME_CREATE;
    }

    /**
     * Pins the host paths of a body {@link #onBody} (and {@link #onVolumes}) admitted and rewrites it
     * so the daemon mounts the pins ({@link PinRewrite}); call only when {@link #pinsBody} is true.
     * The pins are saved before this returns; release them ({@link BindPins#release}) when the daemon
     * does not create the container or volume.
     */
    public Pinned pin(RequestHead head, byte[] body, RepoIdentity repo) {
        if (body == null || body.length == 0) {
            return new Pinned(body, null, null);
        }
        return pin(head, new Body(body), repo);
    }

    /** {@link #pin(RequestHead, byte[], RepoIdentity)} of a body {@link #onBody} already read. */
    public Pinned pin(RequestHead head, Body body, RepoIdentity repo) {
        try {
            if (body.bytes().length == 0) {
                return new Pinned(body.bytes(), null, null);
            }
            DockerRoute.Kind kind = DockerRoute.classify(head.method(), head.uri()).kind();
            // the roots as the judgement resolved them; a body pinned without one (tests, benches) resolves them once here
            RepoRoots roots = body.roots != null ? body.roots : hostPaths.reach(repo).roots();
            PinRewrite.Result result = kind == DockerRoute.Kind.CONTAINER_CREATE
                    ? PinRewrite.containerCreate(body.json(), body.bytes(), repo, pins, roots)
                    : PinRewrite.volumeCreate(body.json(), body.bytes(), repo, pins, roots);
            if (result.token() != null) {
                try {
                    pins.save(repo);
                } catch (RuntimeException e) {
                    pins.release(repo, result.token());
                    throw e;
                }
            }
            return new Pinned(result.body(), result.token(), null);
        } catch (PolicyRefusal refused) {
            return new Pinned(null, null, RefusalMessages.forMachine(refused.refusal(), repo));
        } catch (RuntimeException unexpected) {
            return new Pinned(null, null, new Refusal(500, RefusalMessages.RULE_INSPECTION_FAILED, null,
                    "the gate could not pin this request's bind sources (" + unexpected.getMessage() + "), so it refuses it",
                    RefusalMessages.GATE_FAULT));
        }
    }

    /** The daemon answered a request {@link #pin} rewrote: its pins stay with what it created, or go. */
    public void settlePins(RepoIdentity repo, String token, boolean created) {
        if (created) {
            pins.commit(repo, token);
        } else {
            pins.release(repo, token);
        }
    }

    private static Verdict afterVolumes(HostPathRules.Reach reach) {
        return reach.volumesToInspect.isEmpty() ? new Verdict.Allow() : new Verdict.InspectVolumes(List.copyOf(reach.volumesToInspect));
    }

    private HeadVerdict classify(RequestHead head, RepoIdentity repo, GrantLookup grants) {
        return classify(head, DockerRoute.classify(head.method(), head.uri()), repo, grants);
    }

    private HeadVerdict classify(RequestHead head, DockerRoute route, RepoIdentity repo, GrantLookup grants) {
        long contentLength = framing(head);
        boolean declaresBody = contentLength > 0 || !head.header("transfer-encoding").isEmpty();
        if (!repo.buildkitDeviceEntitlementDisabled()) {
            refuseBuildKit(head, route);
        }
        if (head.method() != null && head.method().equals("PRI")) {
            throw new PolicyRefusal(RefusalMessages.httpVersion("2 (the PRI preface)"));
        }
        boolean refusedByKind = route.kind() == DockerRoute.Kind.PLUGIN_MANAGEMENT || route.kind() == DockerRoute.Kind.SWARM_INIT
                || route.kind() == DockerRoute.Kind.SWARM_JOIN; // refused below with their own rule, known or not
        // Go's HTTP server answers "OPTIONS *" itself (200, empty) before any router sees it.
        boolean answeredByGo = "OPTIONS".equals(head.method()) && "*".equals(route.requestTarget().path());
        boolean notRouted = refusedByKind || answeredByGo;
        if (!notRouted && !DockerRoute.clean(route.requestTarget().path())) {
            throw new PolicyRefusal(new Refusal(404, RefusalMessages.RULE_UNKNOWN_ROUTE, null,
                    RefusalMessages.unknownRoute(head.method(), route.requestTarget().path(),
                            "the path is not clean (//, . or ..): the daemon routes it nowhere and answers a redirect")));
        }
        if (!notRouted && !DockerRouteTable.known(head.method(), route.path())) {
            throw new PolicyRefusal(new Refusal(404, RefusalMessages.RULE_UNKNOWN_ROUTE, null,
                    RefusalMessages.unknownRoute(head.method(), route.path(), "the gate matches methods and paths as the daemon does,"
                            + " case and trailing '/' included, against the daemon's routes up to API " + DockerRouteTable.MAX_API_VERSION
                            + ", and refuses others rather than pass them unchecked")));
        }
        String version = DockerRoute.apiVersion(route.requestTarget().path());
        if (version != null && DockerRouteTable.above(version)) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_API_VERSION, RefusalMessages.apiVersionAboveGate(version));
        }
        if (version != null) {
            daemonApiVersion(version, repo, grants);
        } else if (!notRouted) {
            unversioned(route, repo, grants);
        }
        switch (route.kind()) {
            case SWARM_INIT -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_SWARM, null, RefusalMessages.swarm("init"));
            case SWARM_JOIN -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_SWARM, null, RefusalMessages.swarm("join"));
            case PLUGIN_MANAGEMENT -> throw PolicyRefusal.forbidden(RefusalMessages.RULE_PLUGIN_MANAGEMENT, null,
                    RefusalMessages.pluginManagement(head.method(), route.path()));
            case CONTAINER_START -> {
                if (declaresBody) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_START_BODY, RefusalMessages.startWithBody());
                }
                return storedStart(route, "start");
            }
            case CONTAINER_RESTART -> {
                return storedStart(route, "restart");
            }
            case CONTAINER_UPDATE -> {
                if (contentLength > maxBodyBytes) {
                    throw tooLarge(contentLength);
                }
                // The body is judged first (onBody); a restart policy then has the container judged like a start.
                return storedStart(route, "update");
            }
            case CONTAINER_ARCHIVE_READ -> {
                if (declaresBody) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_START_BODY,
                            new RefusalText("docker cp out of a container carries no body", "send it without a body (docker cp does)"));
                }
                return storedStart(route, "archive");
            }
            case CONTAINER_EXPORT -> {
                if (declaresBody) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_START_BODY,
                            new RefusalText("an export carries no body", "send it without a body (docker export does)"));
                }
                return storedStart(route, "export");
            }
            case CONTAINER_ARCHIVE_PUT -> {
                return new HeadVerdict.InspectStoredContainer(containerRef(route.target()),
                        DockerRoute.apiVersion(route.requestTarget().path()), "archive", route.requestTarget().rawQuery(), true);
            }
            case COMMIT -> {
                if (contentLength > maxBodyBytes) {
                    throw tooLarge(contentLength);
                }
                String query = route.requestTarget().rawQuery();
                if (query.contains(";")) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_REQUEST_TARGET,
                            RefusalText.of("the commit query contains ';', which the daemon does not read as a separator", "use '&'"));
                }
                List<String> named = route.requestTarget().queryValues("container");
                if (named.size() != 1) {
                    throw PolicyRefusal.badRequest(RefusalMessages.RULE_REQUEST_TARGET, new RefusalText(
                            "a commit names its container exactly once (container=<name or ID>), this one names it "
                                    + named.size() + " times", "name the container once: container=<name or ID>"));
                }
                return new HeadVerdict.InspectStoredContainer(containerRef(named.get(0)),
                        DockerRoute.apiVersion(route.requestTarget().path()), "commit", query);
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
     * The request target to forward in place of an un-versioned one. The daemon serves a request
     * without a {@code /vX.Y} prefix as its own {@code ApiVersion} ({@code GET /version}), so the gate
     * judges it as that version (capped at {@link DockerRouteTable#MAX_API_VERSION}, the newest it
     * knows) and forwards it with that prefix: the daemon then serves exactly the version the gate
     * judged, also when it was replaced by a newer daemon since the gate last read its version.
     * Null when the target is forwarded as sent: it has a version prefix, it is not an origin-form
     * path, the daemon's versions are not known (then {@link #onHead} decides), or nothing verifies
     * daemons (policy tests).
     */
    public String versionedTarget(RequestHead head, RepoIdentity repo, GrantLookup grants) {
        String uri = head.uri();
        if (uri == null || !uri.startsWith("/") || grants == null || grants.daemon(repo.guid()) == null) {
            return null;
        }
        ApiVersions served = grants.apiVersions(repo.guid());
        if (served == null) {
            return null;
        }
        try {
            if (DockerRoute.apiVersion(RequestTarget.parse(uri).path()) != null) {
                return null;
            }
        } catch (RuntimeException unreadable) {
            return null; // refused by onHead
        }
        return "/v" + effectiveVersion(served) + uri;
    }

    /** The version the daemon serves an un-versioned request as (its ApiVersion), capped at the newest the gate knows. */
    private static String effectiveVersion(ApiVersions served) {
        return DockerRouteTable.capped(served.max());
    }

    /**
     * An un-versioned request reaching {@link #classify} was not given a version by
     * {@link #versionedTarget} (an absolute-form target, or the daemon's versions not read yet). The
     * daemon will serve it as its own {@code ApiVersion}: refused while that is unknown (fail
     * closed; {@code /_ping} and {@code /version}, which clients ask to learn it, excepted) or above
     * what the gate knows.
     */
    private static void unversioned(DockerRoute route, RepoIdentity repo, GrantLookup grants) {
        if (grants == null || grants.daemon(repo.guid()) == null) {
            return;
        }
        ApiVersions served = grants.apiVersions(repo.guid());
        if (served == null) {
            if (route.path().equals("/_ping") || route.path().equals("/version")) {
                return;
            }
            throw new PolicyRefusal(new Refusal(503, RefusalMessages.RULE_API_VERSIONS_UNKNOWN, null,
                    RefusalMessages.apiVersionsUnknown("(none given: the daemon's own)", repo, grants.daemon(repo.guid()))));
        }
        if (DockerRouteTable.above(served.max())) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_API_VERSION,
                    RefusalMessages.unversionedAboveGate(repo, served.max(), route.requestTarget().path()));
        }
    }

    /**
     * A version prefix must lie within what the repo's daemon serves ({@code GET /version}
     * {@code MinAPIVersion}..{@code ApiVersion}), refused as the daemon's own version check would
     * refuse it, but before it gets there; while the gate has not read those versions it refuses
     * (fail closed) rather than assume them. Nothing to bound where nothing verifies daemons.
     */
    private static void daemonApiVersion(String version, RepoIdentity repo, GrantLookup grants) {
        if (grants == null || grants.daemon(repo.guid()) == null) {
            return;
        }
        ApiVersions served = grants.apiVersions(repo.guid());
        if (served == null) {
            throw new PolicyRefusal(new Refusal(503, RefusalMessages.RULE_API_VERSIONS_UNKNOWN, null,
                    RefusalMessages.apiVersionsUnknown(version, repo, grants.daemon(repo.guid()))));
        }
        if (served.aboveMax(version) || served.belowMin(version)) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_API_VERSION, RefusalMessages.apiVersionOutside(version, repo, served));
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
                    RefusalText.of("a request with both Content-Length and Transfer-Encoding is ambiguous", "send one of them"));
        }
        long length = -1;
        for (String value : cl) {
            String v = value == null ? "" : value.trim();
            if (v.isEmpty() || v.length() > 18 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new PolicyRefusal(RefusalMessages.framing("Content-Length \"" + value + "\" is not a byte count"));
            }
            long parsed = Long.parseLong(v);
            if (length >= 0 && parsed != length) {
                throw new PolicyRefusal(RefusalMessages.framing("conflicting Content-Length headers (" + length + " and " + parsed + ")"));
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
                buildContentType(head.header("content-type"));
            }
            default -> {
                // not BuildKit
            }
        }
    }

    /** Media types of a /build body that Go's form parsing never reads (the build context: a tar stream). */
    private static final Set<String> BUILD_CONTEXT_TYPES = Set.of("application/x-tar", "application/tar",
            "application/octet-stream");

    /**
     * The daemon reads every /build parameter with Go's {@code r.FormValue}, which parses an
     * {@code application/x-www-form-urlencoded} or {@code multipart/form-data} body and lets its
     * values win over the query string, so {@code version=2} could sit anywhere in such a body (after
     * any preamble, in any part, chunked, beyond any inspection limit). No client sends the build
     * context as a form (the daemon would consume it as the form), so the gate decides from the head
     * alone: a body is allowed only as a build context type, and a Content-Type the gate might read
     * differently from Go (repeated, or not plain ASCII: Go lower-cases Unicode, so "İ" becomes "i")
     * is refused rather than guessed at.
     */
    private static void buildContentType(List<String> values) {
        if (values.isEmpty()) {
            return; // Go: no Content-Type is application/octet-stream, never a form
        }
        if (values.size() > 1) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null,
                    RefusalMessages.buildContentType(String.join(", ", values), "it is repeated"));
        }
        String value = values.get(0) == null ? "" : values.get(0);
        if (!value.chars().allMatch(c -> c == '\t' || (c >= 0x20 && c < 0x7f))) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null,
                    RefusalMessages.buildContentType(value, "it is not plain ASCII"));
        }
        String media = value.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (!media.isEmpty() && !BUILD_CONTEXT_TYPES.contains(media)) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_BUILDKIT, null, RefusalMessages.buildContentType(value,
                    media.equals("multipart/form-data") || media.equals("application/x-www-form-urlencoded")
                            ? "the daemon reads build parameters from a form body, and version=2 there selects BuildKit"
                            : "only a build context (application/x-tar) is accepted as a build body"));
        }
    }

    private static HeadVerdict.InspectStoredContainer storedStart(DockerRoute route, String action) {
        return new HeadVerdict.InspectStoredContainer(containerRef(route.target()),
                DockerRoute.apiVersion(route.requestTarget().path()), action, route.requestTarget().rawQuery());
    }

    private static String containerRef(String target) {
        if (target == null || !CONTAINER_REF.matcher(target).matches()) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_REQUEST_TARGET, new RefusalText(
                    "\"" + target + "\" is not a container name or ID (letters, digits, '_', '.', '-')",
                    "name the container by its name or ID (docker ps -a lists them)"));
        }
        return target;
    }

    private static JsonObject requireObject(JsonValue json) {
        if (json instanceof JsonObject object) {
            return object;
        }
        throw PolicyRefusal.badRequest(RefusalMessages.RULE_FIELD_TYPE,
                new RefusalText("the body must be a JSON object, got " + json.describe(), "send the body as a JSON object"));
    }

    private PolicyRefusal tooLarge(long size) {
        return new PolicyRefusal(new Refusal(413, RefusalMessages.RULE_TOO_LARGE, null, RefusalMessages.tooLarge(size, maxBodyBytes)));
    }

    private static Refusal inspectionFailed(RuntimeException e) {
        return new Refusal(400, RefusalMessages.RULE_INSPECTION_FAILED, null,
                "the gate could not inspect this request (" + e.getClass().getSimpleName() + "), so it refuses it", RefusalMessages.GATE_FAULT);
    }
}
