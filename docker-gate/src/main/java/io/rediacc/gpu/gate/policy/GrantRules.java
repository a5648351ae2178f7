package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.events.DaemonStatus;
import java.util.List;
import java.util.Set;

/** The last check: every CDI name a request asks for must be granted to this repo, by exact string. */
final class GrantRules {

    private GrantRules() {
    }

    /**
     * Refuses with 503 while grants are not loaded (only requests that name a device wait; everything
     * else passes), then with 403 naming the first missing grant and how to add it.
     */
    static void check(Set<String> requested, RepoIdentity repo, GrantLookup grants, String suffix) {
        if (requested.isEmpty()) {
            return;
        }
        String first = requested.iterator().next();
        if (!grants.loaded()) {
            throw new PolicyRefusal(new Refusal(503, RefusalMessages.RULE_GRANTS_NOT_LOADED, first,
                    RefusalMessages.grantsNotLoaded(first, repo)));
        }
        DaemonStatus daemon = grants.daemon(repo.guid());
        if (daemon != null && !DaemonStatus.OK.equals(daemon.state())) {
            boolean misconfigured = DaemonStatus.MISCONFIGURED.equals(daemon.state());
            throw new PolicyRefusal(new Refusal(503,
                    misconfigured ? RefusalMessages.RULE_DAEMON_MISCONFIGURED : RefusalMessages.RULE_DAEMON_UNVERIFIED, first,
                    RefusalMessages.daemonNotVerified(first, repo, daemon)));
        }
        List<String> missing = requested.stream().filter(name -> !grants.holds(repo.guid(), name)).toList();
        if (missing.isEmpty()) {
            // granted, but a setup removed the device: say so (and name setup) instead of the runtime's "unresolvable CDI devices"
            List<String> orphaned = requested.stream().filter(grants::orphaned).toList();
            if (!orphaned.isEmpty()) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_CDI_ORPHANED, orphaned.get(0),
                        RefusalMessages.orphaned(orphaned.get(0), repo).appended((orphaned.size() > 1
                                ? " (also orphaned: " + String.join(", ", orphaned.subList(1, orphaned.size())) + ")" : "")
                                + suffix));
            }
            return;
        }
        RefusalText message = RefusalMessages.notGranted(missing.get(0), repo);
        if (missing.size() > 1) {
            message = message.appended(" (also not granted: " + String.join(", ", missing.subList(1, missing.size())) + ")");
        }
        throw PolicyRefusal.forbidden(RefusalMessages.RULE_NOT_GRANTED, missing.get(0), message.appended(suffix));
    }

    /**
     * A daemon the gate found misconfigured (an nvidia default runtime, OCI hooks, CDI spec dirs the
     * repo could write) can hand a container devices no grant names, so every request that makes,
     * starts or enters a container is refused (503, with the daemon.json fix), not only device requests.
     * A daemon not yet verified or unreachable refuses only device requests ({@link #check}).
     */
    static void requireFitDaemon(RepoIdentity repo, GrantLookup grants, String what) {
        DaemonStatus daemon = grants == null ? null : grants.daemon(repo.guid());
        if (daemon != null && DaemonStatus.MISCONFIGURED.equals(daemon.state())) {
            throw new PolicyRefusal(new Refusal(503, RefusalMessages.RULE_DAEMON_MISCONFIGURED, null,
                    RefusalMessages.daemonMisconfigured(what, repo, daemon)));
        }
    }
}
