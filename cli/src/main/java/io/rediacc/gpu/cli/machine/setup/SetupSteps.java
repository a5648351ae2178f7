package io.rediacc.gpu.cli.machine.setup;

import java.util.List;

/** The steps of {@code rdc machine setup}, in the order they run. A new step goes into this list. */
public final class SetupSteps {

    private SetupSteps() {
    }

    /** From SSH to a machine the fleet sees enforced; {@code machinePackage} is the rediacc-gpu-node .deb to install,
     * {@code rekey} lets a different machine key replace the registered one, {@code force} lets setup remove
     * CDI devices that hold grants (orphaning them). */
    public static List<SetupStep> all(DebPackage machinePackage, boolean rekey, boolean force) {
        return List.of(
                new ConnectStep(),
                new PackageStep(machinePackage),
                // before prepare starts the services: their first records must already count, their grants be verifiable
                new MachineKeyStep(rekey),
                new KafkaUserStep(),
                new GrantsKeyStep(),
                new PrepareStep(force),
                new FleetStep());
    }
}
