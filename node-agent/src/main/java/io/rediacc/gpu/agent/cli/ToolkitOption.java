package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import picocli.CommandLine.Option;

/** {@code --install-nvidia-toolkit} of setup and prepare ({@code @Mixin}). */
public class ToolkitOption {

    @Option(names = "--install-nvidia-toolkit", paramLabel = "auto|true|false",
            description = "auto (default: agent.install-nvidia-toolkit): install when an NVIDIA GPU is present; true: always; "
                    + "false: never, and no NVIDIA spec.")
    String installNvidiaToolkit;

    /** The policy asked for, else the configured one; IllegalArgumentException names what is wrong. */
    ToolkitPolicy policy(AgentConfig config) {
        return ToolkitPolicy.parse(installNvidiaToolkit != null ? installNvidiaToolkit : config.installNvidiaToolkit());
    }
}
