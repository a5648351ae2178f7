package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;

/** Machine names from the command line, checked by the contracts' rule before any request. */
public final class MachineNames {

    private MachineNames() {
    }

    public static String valid(String name) {
        try {
            return Identifiers.machine(name);
        } catch (InvalidIdentifierException e) {
            throw Failure.usage(e.getMessage());
        }
    }
}
