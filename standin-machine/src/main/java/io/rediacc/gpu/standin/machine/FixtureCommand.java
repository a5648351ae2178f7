package io.rediacc.gpu.standin.machine;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code standin-machine DIR}: builds a simulated machine for tests and fleet simulations (see {@link FixtureRoot}). */
@Command(name = "standin-machine", mixinStandardHelpOptions = true,
        description = "Build a simulated GPU machine in DIR (for tests and fleet simulations, never for a real machine): "
                + "DIR/root is the machine root (--root), DIR/bin holds stand-in nvidia-smi, nvidia-ctk, package manager "
                + "and systemctl (agent.path), DIR/calls/TOOL.log records their calls.")
public class FixtureCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR", description = "Directory to build in; must be empty or absent.")
    Path dir;

    @Option(names = "--nvidia", paramLabel = "N", description = "NVIDIA GPUs (default 0).")
    int nvidia;

    @Option(names = "--amd", paramLabel = "N", description = "AMD GPUs, MI210-like, with KFD topology (default 0).")
    int amd;

    @Option(names = "--intel", paramLabel = "N", description = "Intel GPUs (render nodes only; default 0).")
    int intel;

    @Option(names = "--wsl", description = "A WSL2 machine (/dev/dxg, nvidia-ctk --mode=wsl).")
    boolean wsl;

    @Option(names = "--hostname", paramLabel = "NAME", description = "/etc/hostname, the default machine name (default fixture-machine).")
    String hostname = "fixture-machine";

    @Option(names = "--toolkit-installed", description = "nvidia-ctk already installed (default: the stand-in apt-get installs it).")
    boolean toolkitInstalled;

    @Option(names = "--package-manager", paramLabel = "apt-get|dnf|none", description = "Stand-in package manager (default apt-get).")
    String packageManager = "apt-get";

    @Option(names = "--toolkit-version", paramLabel = "V", description = "Version the stand-in nvidia-ctk reports (default "
            + FixtureRoot.NVIDIA_CTK_VERSION + "; 1.18.0+ installs the nvidia-cdi-refresh units).")
    String toolkitVersion = FixtureRoot.NVIDIA_CTK_VERSION;

    @Option(names = "--toolkit-repo-missing", description = "NVIDIA's package repository is not configured (setup must add it).")
    boolean toolkitRepoMissing;

    @Option(names = "--persistenced", description = "nvidia-persistenced runs (its socket exists).")
    boolean persistenced;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (Files.isDirectory(dir)) {
            try (var entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    spec.commandLine().getErr().println("standin-machine: " + dir + " is not empty; choose a new directory");
                    return 2;
                }
            }
        }
        FixtureRoot f = FixtureRoot.builder(dir)
                .hostname(hostname)
                .nvidia(nvidia)
                .amd(amd)
                .intel(intel)
                .wsl(wsl)
                .toolkitInstalled(toolkitInstalled)
                .packageManager("none".equals(packageManager) ? null : packageManager)
                .persistenced(persistenced)
                .toolkitVersion(toolkitVersion)
                .toolkitRepoMissing(toolkitRepoMissing)
                .build();
        out.println("root=" + f.root());
        out.println("path=" + f.searchPath());
        out.println("calls=" + f.dir().resolve("calls"));
        out.flush();
        return 0;
    }
}
