package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.command.Commands;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rdc repo gpu}: a group; its commands are in {@link io.rediacc.gpu.cli.CommandTree}. */
public final class RepoGpuCommand {

    private RepoGpuCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        return Commands.withStandardHelpOptions(Commands.command(new RepoGpuCommand(), "gpu",
                new String[]{"Grant, revoke and list a repo's GPU device names (CDI names such as nvidia.com/gpu=0)."},
                "  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0 --device nvidia.com/gpu=1",
                "  rdc repo gpu revoke train-a@gpu-host-1 --device nvidia.com/gpu=1",
                "  rdc repo gpu list train-a@gpu-host-1"));
    }
}
