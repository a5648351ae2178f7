package io.rediacc.gpu.gate.policy;

/**
 * Judges the object a pin opened by its physical path (what the kernel names the descriptor), with
 * the same rules a requested host path is judged by ({@link HostPathRules}): under one of the
 * repo's {@code hostPaths} roots as they resolve, and no protected path at, under or above it.
 */
public final class PinnedObjectJudge {

    private final HostPathRules rules;

    public PinnedObjectJudge(HostAccess access) {
        this.rules = new HostPathRules(access);
    }

    /** Throws {@link BindPins.Refused} (403) unless {@code physicalPath} may be bound for {@code repo}. */
    public void judge(RepoIdentity repo, String requested, String physicalPath) {
        judge(repo, requested, physicalPath, null);
    }

    /** {@link #judge(RepoIdentity, String, String)} against the request's view of the roots ({@code roots}; null: resolved now). */
    public void judge(RepoIdentity repo, String requested, String physicalPath, RepoRoots roots) {
        try {
            rules.reach(repo, roots).opened(requested, physicalPath);
        } catch (PolicyRefusal refused) {
            throw new BindPins.Refused(refused.refusal().status(), refused.refusal().message());
        }
    }
}
