package io.rediacc.gpu.agent.setup;

import io.rediacc.gpu.contracts.events.MachineInventory;

import java.util.List;

/**
 * What one setup did.
 *
 * @param inventory the record written to {@code inventory.json}
 * @param actions   what changed on the machine (installs, specs written or removed, drop-ins)
 * @param notes     what could not be read or was skipped, for the operator
 * @param failed    something setup was asked to do did not happen; the inventory was written anyway
 */
public record SetupReport(MachineInventory inventory, List<String> actions, List<String> notes, boolean failed) {
    public SetupReport {
        actions = List.copyOf(actions);
        notes = List.copyOf(notes);
    }
}
