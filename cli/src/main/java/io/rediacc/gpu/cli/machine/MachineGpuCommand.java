package io.rediacc.gpu.cli.machine;

import picocli.CommandLine.Command;

/** {@code rdc machine gpu}. */
@Command(name = "gpu", mixinStandardHelpOptions = true,
        description = "A machine's GPUs and grantable CDI devices.",
        footerHeading = "%nExamples:%n",
        footer = {"  rdc machine gpu list gpu-host-1", "  rdc machine gpu list gpu-host-1 -o json"})
public class MachineGpuCommand {
}
