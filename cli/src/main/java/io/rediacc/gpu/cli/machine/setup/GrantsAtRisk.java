package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.contracts.events.Grant;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The grants a setup would orphan, in rdc's terms: each grant with the {@code rdc repo gpu revoke}
 * that frees it, so that a refused setup tells the operator exactly what to run.
 *
 * @param machine the machine set up
 * @param grants  the machine's grants, as grant-service holds them
 */
record GrantsAtRisk(String machine, List<Grant> grants) {

    /** The distinct CDI names the grants hold: what node-agent prepare must not remove without --force. */
    List<String> guardedNames() {
        return List.copyOf(new TreeSet<>(grants.stream().map(Grant::device).toList()));
    }

    /** One line per grant of the given names: {@code gpu-a@m holds nvidia.com/gpu=0 (exclusive): rdc repo gpu revoke ...}. */
    List<String> lines(Collection<String> names) {
        List<String> out = new ArrayList<>();
        grants.stream().filter(g -> names.contains(g.device()))
                .sorted(java.util.Comparator.comparing(Grant::device).thenComparing(Grant::repoName))
                .forEach(g -> out.add(g.repoName() + "@" + machine + " holds " + g.device()
                        + (g.exclusive() ? " (exclusive)" : "") + ": rdc repo gpu revoke " + g.repoName() + "@" + machine
                        + " --device " + g.device()));
        return out;
    }

    /** Why setup stopped, with every grant and its revoke command, and the way to go ahead anyway. */
    String refusal(Collection<String> names) {
        return "setup of " + machine + " refused: it would remove CDI device(s) that hold grants, and changed nothing on "
                + "the machine:\n  " + String.join("\n  ", lines(names)) + "\nrevoke those grants first, or run rdc machine "
                + "setup " + machine + " --force to remove the devices anyway (their grants become orphaned: the gate "
                + "refuses them until the devices return)";
    }
}
