package io.rediacc.gpu.agent.machine;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Keeps setup from orphaning live grants in silence. {@code rdc machine setup} passes the CDI names
 * the machine's grants hold ({@code --guard-grant}); a setup whose specs no longer define one of them
 * is undone — every file it owns ({@code /etc/cdi/*}, {@code inventory.json}, the refresh drop-in)
 * put back byte for byte — and refused, unless {@code --force} says to go ahead (those grants are
 * orphaned then: the gate refuses them, naming setup, until the device returns).
 *
 * @param granted the names that hold grants on this machine
 * @param force   go ahead even when a granted name disappears
 */
public record GrantGuard(Set<String> granted, boolean force) {

    public static final GrantGuard NONE = new GrantGuard(Set.of(), false);

    public GrantGuard {
        granted = Set.copyOf(granted);
    }

    /** The granted names the machine no longer defines after setup, sorted. */
    public List<String> lost(Set<String> definedAfter) {
        TreeSet<String> lost = new TreeSet<>(granted);
        lost.removeAll(definedAfter);
        return List.copyOf(lost);
    }
}
