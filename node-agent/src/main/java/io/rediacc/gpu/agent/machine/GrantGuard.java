package io.rediacc.gpu.agent.machine;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Keeps setup from orphaning live grants in silence. The granted names come from the caller
 * ({@code --guard-grant}: {@code rdc machine setup} passes what grant-service holds) or, when it names none,
 * from docker-gate's verified copy of the machine's grants ({@link GateGrantCopies}); a setup whose specs no
 * longer define one of them is undone — every file it owns ({@code /etc/cdi/*}, {@code inventory.json}, the
 * refresh drop-in) put back byte for byte — and refused, unless {@code --force} says to go ahead (those grants
 * are orphaned then: the gate refuses them, naming setup, until the device returns).
 *
 * @param granted the names that hold grants on this machine
 * @param holders for a granted name, each grant on it with the revoke that frees it, when known (the gate's
 *                copy names the repos; {@code --guard-grant} gives names only)
 * @param unknown why nobody can say which names hold grants (a copy that does not verify): then every name the
 *                machine defined before setup is guarded, since any of them may be granted; null when known
 * @param force   go ahead even when a guarded name disappears
 */
public record GrantGuard(Set<String> granted, Map<String, List<String>> holders, String unknown, boolean force) {

    public static final GrantGuard NONE = new GrantGuard(Set.of(), false);

    public GrantGuard {
        granted = Set.copyOf(granted);
        holders = Map.copyOf(holders);
    }

    /** Guards the names the caller says are granted. */
    public GrantGuard(Set<String> granted, boolean force) {
        this(granted, Map.of(), null, force);
    }

    /** Guards every name the machine defines, because which of them hold grants cannot be told ({@code why}). */
    public static GrantGuard unknown(String why, boolean force) {
        return new GrantGuard(Set.of(), Map.of(), why, force);
    }

    /** The guarded names the machine no longer defines after setup, sorted. */
    public List<String> lost(Set<String> definedBefore, Set<String> definedAfter) {
        TreeSet<String> lost = new TreeSet<>(unknown == null ? granted : definedBefore);
        lost.removeAll(definedAfter);
        return List.copyOf(lost);
    }

    /** Why setup refused to remove {@code lost}, with each grant's revoke where known and the way to go ahead anyway. */
    public String refusal(List<String> lost) {
        String names = String.join(", ", lost);
        String kept = "; nothing was changed (the specs and inventory are as before). ";
        String forced = "run setup again with --force to remove the devices anyway (their grants become orphaned: refused "
                + "by the gate until the devices return)";
        if (unknown != null) {
            return "it would remove CDI device(s) that may hold grants: " + names + ", and which names hold grants cannot be"
                    + " told: " + unknown + kept + "Fix that, pass the granted names with --guard-grant (rdc machine setup"
                    + " passes those grant-service holds), or " + forced;
        }
        List<String> grants = lost.stream().flatMap(n -> holders.getOrDefault(n, List.of()).stream()).toList();
        return "it would remove CDI device(s) that hold grants: " + names + kept
                + (grants.isEmpty() ? "" : "The grants: " + String.join("; ", grants) + ". ")
                + "Revoke those grants first, or " + forced;
    }
}
