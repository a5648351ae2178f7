package io.rediacc.gpu.gate.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One request's view of a repo's {@code hostPaths} roots: each as written in the manifest and as the
 * host resolves it, resolved at most once per request, on first use. The judgement of the request's
 * host paths ({@link HostPathRules.Reach}), the pin step's choice of the root a path lies beneath and
 * its judgement of each object it opened all read this one view: a create with n binds resolved the
 * roots 1 + 2n times before (issue 34), each a {@code realpath} of every root.
 *
 * <p>Nothing is cached across requests. Within one, the roots are what the host said at their first
 * use: a root that resolves elsewhere later in the same request is judged by where it resolved first,
 * and the pin still opens the object beneath the root as it resolves at the pin (openat2), then judges
 * the object actually opened by its physical path against this view, so a change in between can only
 * refuse (fail closed), never admit an object outside the roots as first resolved.
 */
public final class RepoRoots {

    /** A root as written (cleaned) and as resolved now; {@code resolved} is null when it cannot be resolved. */
    public record Root(String written, String resolved) {
    }

    private final List<String> written;
    private final HostAccess access;
    private List<Root> roots;
    private List<String> allowed;

    RepoRoots(RepoAllowance allowance, HostAccess access) {
        this.written = allowance.hostPaths();
        this.access = access;
    }

    /** Each root as written and as resolved, in the manifest's order. */
    public List<Root> roots() {
        if (roots == null) {
            List<Root> out = new ArrayList<>(written.size());
            for (String root : written) {
                out.add(new Root(root, access.realPath(root).orElse(null)));
            }
            roots = List.copyOf(out);
        }
        return roots;
    }

    /** The roots a host path may lie under: as written, and as resolved (cleaned as the daemon cleans paths). */
    List<String> allowed() {
        if (allowed == null) {
            Set<String> all = new LinkedHashSet<>(written);
            for (Root root : roots()) {
                if (root.resolved() != null) {
                    all.add(HostPathRules.normalize(root.resolved()));
                }
            }
            allowed = List.copyOf(all);
        }
        return allowed;
    }
}
