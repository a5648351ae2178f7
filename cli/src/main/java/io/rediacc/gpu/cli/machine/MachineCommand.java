package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.command.Commands;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rdc machine}: a group; its commands are in {@link io.rediacc.gpu.cli.CommandTree}. */
public final class MachineCommand {

    private MachineCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        return Commands.withStandardHelpOptions(Commands.command(new MachineCommand(), "machine",
                new String[]{"The machines of the fleet and their GPUs."},
                "  rdc machine list",
                "  rdc machine gpu list gpu-host-1",
                "  rdc machine setup gpu-host-1 --host root@10.0.0.5",
                "  rdc machine remove gpu-host-9 --revoke-grants"));
    }
}
