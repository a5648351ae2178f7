package io.rediacc.gpu.cli.machine;

import picocli.CommandLine.Command;

/** {@code rdc machine}. */
@Command(name = "machine", mixinStandardHelpOptions = true,
        description = "The machines of the fleet and their GPUs.",
        footerHeading = "%nExamples:%n",
        footer = {"  rdc machine list", "  rdc machine gpu list gpu-host-1", "  rdc machine setup gpu-host-1 --host root@10.0.0.5",
                "  rdc machine remove gpu-host-9 --revoke-grants"})
public class MachineCommand {
}
