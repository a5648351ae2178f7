package io.rediacc.gpu.cli.machine.setup;

import java.util.List;

/** The steps of {@code rdc machine setup}, in the order they run. A new step goes into this list. */
public final class SetupSteps {

    private SetupSteps() {
    }

    /** From SSH to a machine the fleet sees enforced; {@code machinePackage} is the rediacc-gpu-node .deb to install. */
    public static List<SetupStep> all(DebPackage machinePackage) {
        return List.of(
                new ConnectStep(),
                new PackageStep(machinePackage),
                new PrepareStep(),
                new FleetStep());
    }
}
