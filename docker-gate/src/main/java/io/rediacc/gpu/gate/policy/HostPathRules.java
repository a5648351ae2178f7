package io.rediacc.gpu.gate.policy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which host paths a repo's container may get through a bind, a bind-backed volume or a mount
 * source: only paths under the roots the repos manifest gives that repo ({@code hostPaths}), and
 * never a protected path ({@link ProtectedPath#BUILT_IN} plus what {@link HostAccess} adds), nor
 * anything under one, nor a directory above one — even when a {@code hostPaths} root contains it.
 *
 * <p>A path is judged twice: as written, after Go's {@code path.Clean} with {@code /var/run} read as
 * {@code /run} (the daemon cleans it the same way), and as the host resolves it now, symlinks
 * included (mount(2) follows them). Both must pass. The daemon would mount the path again at every
 * start, restart and {@code docker cp}, so an admitted path is then pinned ({@link BindPins}): the
 * object opened beneath its root is judged once more ({@link Reach#opened}) and the daemon mounts
 * the pin, not the path (docs/SECURITY.md).
 */
final class HostPathRules {

    /** Protected paths with the forms they resolve to, for one version of {@link HostAccess#protectedPaths()}. */
    private record Expanded(List<ProtectedPath> source, List<ProtectedPath> all) {
    }

    private final HostAccess access;
    private volatile Expanded expanded;

    HostPathRules(HostAccess access) {
        this.access = access;
    }

    /** The judge of one request of {@code repo}. */
    Reach reach(RepoIdentity repo) {
        return reach(repo, null);
    }

    /** The judge of one request of {@code repo} whose roots were resolved already ({@code roots}; null: not yet). */
    Reach reach(RepoIdentity repo, RepoRoots roots) {
        RepoAllowance allowance = access.allowance(repo);
        RepoAllowance a = allowance == null ? RepoAllowance.none("the repos manifest") : allowance;
        return new Reach(repo, a, protectedNow(), roots != null ? roots : new RepoRoots(a, access));
    }

    private List<ProtectedPath> protectedNow() {
        List<ProtectedPath> extra = access.protectedPaths();
        Expanded e = expanded;
        if (e != null && e.source() == extra) {
            return e.all();
        }
        Map<String, ProtectedPath> all = new LinkedHashMap<>();
        List<ProtectedPath> written = new ArrayList<>(ProtectedPath.BUILT_IN);
        written.addAll(extra);
        for (ProtectedPath p : written) {
            all.putIfAbsent(p.path(), p);
        }
        for (ProtectedPath p : written) {
            // /var/run/docker.sock is /run/docker.sock; /etc/cdi may be a link elsewhere: protect where it leads too.
            access.realPath(p.path()).map(HostPathRules::normalize).filter(r -> !r.equals("/"))
                    .ifPresent(real -> all.putIfAbsent(real, new ProtectedPath(real, p.why())));
        }
        List<ProtectedPath> list = List.copyOf(all.values());
        expanded = new Expanded(extra, list);
        return list;
    }

    /**
     * Go's {@code path.Clean}, then {@code /var/run} as {@code /run} (a symlink to it on every
     * current distribution, and written both ways in configuration).
     */
    static String normalize(String hostPath) {
        String p = GoPath.clean(hostPath);
        if (p.equals("/var/run")) {
            return "/run";
        }
        if (p.startsWith("/var/run/")) {
            return "/run" + p.substring("/var/run".length());
        }
        return p;
    }

    /** The cleaned form used in messages; a NUL ends it. */
    static String cleaned(String hostPath) {
        int nul = hostPath.indexOf('\0');
        return GoPath.clean(nul >= 0 ? hostPath.substring(0, nul) : hostPath);
    }

    /**
     * Refuses a host path string the daemon will use as written unless it is already clean: no
     * {@code .} or {@code ..} segment, no {@code //}, no trailing {@code /} (a local volume's
     * {@code device}, a log socket). mount(2) and connect(2) resolve {@code <R>/l/..} through the
     * link {@code l} first, so judging the cleaned string would judge another place.
     */
    static void requireClean(String written, String what, String where) {
        if (written == null || written.equals("/") || !written.startsWith("/")) {
            return; // empty, the root and relative paths are judged (and refused) by hostPath
        }
        boolean clean = !written.contains("//") && !written.endsWith("/");
        for (String segment : written.substring(1).split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                clean = false;
            }
        }
        if (!clean) {
            throw new PolicyRefusal(new Refusal(400, RefusalMessages.RULE_PATH_NOT_CLEAN, null,
                    RefusalMessages.pathNotClean(what, where, written)));
        }
    }

    /** {@code path} is {@code root} or lies under it. */
    static boolean within(String path, String root) {
        return path.equals(root) || root.equals("/") || path.startsWith(root + "/");
    }

    /** {@code path} is, lies under, or contains {@code protectedPath}. */
    static boolean reaches(String path, String protectedPath) {
        return within(path, protectedPath) || within(protectedPath, path);
    }

    /**
     * One request's view: the repo, what it may reach, and the named volumes the request uses (which
     * the data plane inspects on the daemon before the request goes on).
     */
    final class Reach {

        final RepoIdentity repo;
        final RepoAllowance allowance;
        private final List<ProtectedPath> protectedPaths;
        final Set<String> volumesToInspect = new LinkedHashSet<>();
        /** The allowed roots as written and as resolved, resolved once per request (on its first host path). */
        private final RepoRoots roots;
        /**
         * Set when judging what already exists on the daemon (a stored container, an existing volume)
         * with pinning on: the directory of this repo's pins. A bind or bind device there is a pin the
         * gate made and judged; any other host path was mounted by path (made before pinning) and is refused.
         */
        String pinDirectory;

        private Reach(RepoIdentity repo, RepoAllowance allowance, List<ProtectedPath> protectedPaths, RepoRoots roots) {
            this.repo = repo;
            this.allowance = allowance;
            this.protectedPaths = protectedPaths;
            this.roots = roots;
        }

        /** The request's view of the repo's roots, for the pin step of the same request. */
        RepoRoots roots() {
            return roots;
        }

        /**
         * Refuses (with {@code rule}) unless the daemon may mount {@code written} for this repo.
         * {@code what} names the construct ("bind of host path"), {@code where} the field and spelling.
         */
        void hostPath(String written, String rule, String what, String where) {
            if (written.indexOf('\0') >= 0) {
                throw PolicyRefusal.forbidden(rule, cleaned(written), RefusalText.of(what + " " + cleaned(written) + " in " + where
                        + " is refused: it contains a NUL byte", "write the path without it"));
            }
            if (!written.startsWith("/")) {
                throw PolicyRefusal.forbidden(rule, written, new RefusalText(what + " \"" + written + "\" in " + where
                        + " is refused: a host path must be absolute (a relative one resolves against the daemon's working directory)",
                        "write the host path as an absolute path (compose resolves ./relative paths itself)"));
            }
            String lexical = normalize(written);
            refuseProtected(lexical, written, null, rule, what, where);
            List<String> roots = allowedRoots();
            refuseOutsideRoots(lexical, written, null, roots, what, where);
            Optional<String> real = access.realPath(lexical);
            if (real.isEmpty()) {
                throw PolicyRefusal.forbidden(rule, lexical, new RefusalText(what + " " + lexical + " in " + where
                        + " is refused: the gate cannot resolve it on this host (a dangling symlink, or a directory on the way "
                        + "the gate may not search), and it refuses what it cannot resolve",
                        "create the directory (or fix the symlink) under the repo's hostPaths, then retry"));
            }
            String resolved = normalize(real.get());
            if (!resolved.equals(lexical)) {
                refuseProtected(resolved, written, resolved, rule, what, where);
                refuseOutsideRoots(resolved, written, resolved, roots, what, where);
            }
        }

        /**
         * Judges the object a pin opened for {@code requested}: its physical path must lie under a
         * root and reach no protected path.
         */
        void opened(String requested, String physicalPath) {
            String physical = normalize(physicalPath);
            refuseProtected(physical, requested, physical, RefusalMessages.RULE_HOST_PATH, "bind of host path", "the request");
            refuseOutsideRoots(physical, requested, physical, allowedRoots(), "bind of host path", "the request");
        }

        /** The repo's roots as written and as the host resolves them. */
        private List<String> allowedRoots() {
            return roots.allowed();
        }

        private void refuseProtected(String path, String written, String resolvedTo, String rule, String what, String where) {
            String refusedRule = rule.equals(RefusalMessages.RULE_VOLUME_OPTIONS) || rule.equals(RefusalMessages.RULE_LOG_DRIVER) ? rule : RefusalMessages.RULE_HOST_PATH;
            if (path.equals("/")) {
                throw PolicyRefusal.forbidden(refusedRule, "/",
                        RefusalMessages.hostPath(what, where, written, "/").appended(via(resolvedTo)));
            }
            for (ProtectedPath p : protectedPaths) {
                if (reaches(path, p.path())) {
                    String root = p.path();
                    RefusalText message = switch (root) {
                        case "/dev", "/proc", "/sys" -> RefusalMessages.hostPath(what, where, written, root).appended(via(resolvedTo));
                        default -> RefusalMessages.protectedHostPath(what, where, written, resolvedTo, p);
                    };
                    throw PolicyRefusal.forbidden(refusedRule, path, message);
                }
            }
        }

        private void refuseOutsideRoots(String path, String written, String resolvedTo, List<String> roots, String what, String where) {
            for (String root : roots) {
                if (within(path, root)) {
                    return;
                }
            }
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_HOST_PATH_NOT_ALLOWED, path,
                    RefusalMessages.hostPathNotAllowed(what, where, written, resolvedTo, repo, allowance));
        }

        private String via(String resolvedTo) {
            return resolvedTo == null ? "" : " (the path resolves to " + resolvedTo + " on this host)";
        }
    }
}
