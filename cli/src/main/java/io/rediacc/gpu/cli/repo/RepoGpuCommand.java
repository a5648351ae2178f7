package io.rediacc.gpu.cli.repo;

import picocli.CommandLine.Command;

/** {@code rdc repo gpu}. */
@Command(name = "gpu", mixinStandardHelpOptions = true,
        description = "Grant, revoke and list a repo's GPU device names (CDI names such as nvidia.com/gpu=0).",
        footerHeading = "%nExamples:%n",
        footer = {"  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0 --device nvidia.com/gpu=1",
                "  rdc repo gpu revoke train-a@gpu-host-1 --device nvidia.com/gpu=1",
                "  rdc repo gpu list train-a@gpu-host-1"})
public class RepoGpuCommand {
}
