package io.rediacc.gpu.agent.toolkit;

import io.rediacc.gpu.contracts.events.MachineInventory.ToolkitState;

import java.util.List;

/**
 * What the toolkit step did.
 *
 * @param state   the toolkit as the inventory records it
 * @param actions what changed on the machine, in order, for the setup summary
 * @param failed  true when something setup was asked to do did not happen (setup exits non-zero)
 */
public record ToolkitOutcome(ToolkitState state, List<String> actions, boolean failed) {
    public ToolkitOutcome {
        actions = List.copyOf(actions);
    }
}
