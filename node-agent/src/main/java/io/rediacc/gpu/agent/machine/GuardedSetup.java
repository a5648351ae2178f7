package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.inventory.InventoryFile;
import io.rediacc.gpu.agent.setup.SetupReport;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * node-agent setup under a {@link GrantGuard}: the one way both {@code node-agent setup} (the boot-time unit) and
 * {@code node-agent prepare} ({@code rdc machine setup}, {@code renet setup}) change the machine's CDI specs.
 */
public final class GuardedSetup {

    private GuardedSetup() {
    }

    /** What the guarded setup did. */
    public sealed interface Outcome {
    }

    /**
     * Setup ran.
     *
     * @param orphaned the guarded names it removed under {@code --force}
     */
    public record Done(SetupReport report, List<String> orphaned) implements Outcome {
    }

    /**
     * Setup would have removed guarded names: every file it owns was put back.
     *
     * @param lost the guarded names it would have removed
     * @param why  the refusal, with the grants and the fix
     * @param kept the machine's inventory as it was (setup's own, when there was none before: only its name is read from it)
     */
    public record Refused(List<String> lost, String why, MachineInventory kept) implements Outcome {
    }

    public static Outcome run(SetupService setup, AgentSettings settings, ToolkitPolicy policy, GrantGuard guard)
            throws IOException {
        HostRoot host = settings.host();
        Set<String> before = InventoryFile.read(host, null).map(GuardedSetup::names).orElse(Set.of());
        OwnedFiles owned = OwnedFiles.capture(host);
        SetupReport r = setup.run(settings, policy);
        List<String> lost = guard.lost(before, names(r.inventory()));
        if (!lost.isEmpty() && !guard.force()) {
            owned.restore();
            return new Refused(lost, guard.refusal(lost), InventoryFile.read(host, null).orElse(r.inventory()));
        }
        return new Done(r, lost);
    }

    private static Set<String> names(MachineInventory inv) {
        return inv.cdiDevices().stream().map(MachineInventory.CdiDeviceInfo::name).collect(Collectors.toSet());
    }
}
