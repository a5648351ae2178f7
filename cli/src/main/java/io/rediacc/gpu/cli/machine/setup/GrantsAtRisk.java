package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.text.RevokeHint;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The grants a setup would orphan, in rdc's terms: each grant with the {@code rdc repo gpu revoke}
 * that frees it, so that a refused setup tells the operator exactly what to run.
 *
 * @param machine    the machine set up
 * @param grants     the machine's grants, as grant-service holds them
 * @param unreadable why grant-service could not say which grants the machine holds; null when it did
 */
record GrantsAtRisk(String machine, List<Grant> grants, String unreadable) {

    GrantsAtRisk(String machine, List<Grant> grants) {
        this(machine, grants, null);
    }

    /** grant-service could not be read ({@code why}): no grants known here. */
    static GrantsAtRisk unreadable(String machine, String why) {
        return new GrantsAtRisk(machine, List.of(), why);
    }

    /**
     * What node-agent prepare is told to guard: each granted name ({@code --guard-grant}); or, when grant-service
     * could not be read, {@code --require-grant-copy}. Then the machine guards by docker-gate's verified copy of its
     * grants, and without a copy it can trust removes no CDI name. Why not refuse here: rdc cannot see whether the
     * machine has such a copy, and prepare can (and undoes its setup when it would remove one), so a setup that
     * removes nothing still goes ahead during a grant-service outage, and one that would is refused on the machine,
     * failing closed. Why not go ahead unguarded (as before): the grants outlive grant-service's answer.
     */
    List<String> guardArguments(boolean force) {
        List<String> args = new ArrayList<>();
        for (String name : guardedNames()) {
            args.add("--guard-grant");
            args.add(name);
        }
        if (unreadable != null && !force) {
            args.add("--require-grant-copy");
        }
        return args;
    }

    /** What the operator is told when grant-service could not be read: who guards the grants instead, and how. */
    java.util.Optional<String> notice(boolean force) {
        if (unreadable == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("cannot read the grants of " + machine + " from grant-service (" + unreadable + "): "
                + (force ? "with --force, setup removes CDI devices whether or not they hold grants"
                        : "the machine guards them by docker-gate's verified copy of its grants instead; without a copy it"
                        + " can trust, setup removes no CDI device (run again with --force to remove them anyway)"));
    }

    /** The distinct CDI names the grants hold: what node-agent prepare must not remove without --force. */
    List<String> guardedNames() {
        return List.copyOf(new TreeSet<>(grants.stream().map(Grant::device).toList()));
    }

    /** One line per grant of the given names: {@code gpu-a@m holds nvidia.com/gpu=0 (exclusive): rdc repo gpu revoke ...}. */
    List<String> lines(Collection<String> names) {
        List<String> out = new ArrayList<>();
        grants.stream().filter(g -> names.contains(g.device()))
                .sorted(java.util.Comparator.comparing(Grant::device).thenComparing(Grant::repoName))
                .forEach(g -> out.add(RevokeHint.line(g, machine)));
        return out;
    }

    /** Why setup stopped, with every grant and its revoke command, and the way to go ahead anyway. */
    String refusal(Collection<String> names) {
        List<String> lines = new ArrayList<>(lines(names));
        // names grant-service did not list: the machine guarded them by its own copy of its grants (or by every name,
        // when it has none it can trust); its refusal line, printed above, names each grant and its revoke
        names.stream().filter(n -> grants.stream().noneMatch(g -> g.device().equals(n))).sorted()
                .forEach(n -> lines.add(n + ": guarded by the machine itself (grant-service did not list it; the machine's "
                        + "refusal above says why)"));
        return "setup of " + machine + " refused: it would remove CDI device(s) that hold grants, and changed nothing on "
                + "the machine:\n  " + String.join("\n  ", lines) + "\nrevoke those grants first, or run rdc machine "
                + "setup " + machine + " --force to remove the devices anyway (their grants become orphaned: the gate "
                + "refuses them until the devices return)";
    }
}
