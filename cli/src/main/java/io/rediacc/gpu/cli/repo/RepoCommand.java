package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.command.Commands;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rdc repo}: a group; its commands are in {@link io.rediacc.gpu.cli.CommandTree}. */
public final class RepoCommand {

    private RepoCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        return Commands.withStandardHelpOptions(Commands.command(new RepoCommand(), "repo",
                new String[]{"Repos and the GPU device names they are granted."},
                "  rdc repo gpu list train-a@gpu-host-1",
                "  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0"));
    }
}
