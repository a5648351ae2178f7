package io.rediacc.gpu.cli.repo;

import picocli.CommandLine.Command;

/** {@code rdc repo}. */
@Command(name = "repo", mixinStandardHelpOptions = true,
        description = "Repos and the GPU device names they are granted.",
        footerHeading = "%nExamples:%n",
        footer = {"  rdc repo gpu list train-a@gpu-host-1",
                "  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0"})
public class RepoCommand {
}
