package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.command.Commands;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rdc machine gpu}: a group; its commands are in {@link io.rediacc.gpu.cli.CommandTree}. */
public final class MachineGpuCommand {

    private MachineGpuCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        return Commands.withStandardHelpOptions(Commands.command(new MachineGpuCommand(), "gpu",
                new String[]{"A machine's GPUs and grantable CDI devices."},
                "  rdc machine gpu list gpu-host-1",
                "  rdc machine gpu list gpu-host-1 -o json"));
    }
}
