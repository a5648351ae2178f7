package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.machine.SavedToolkitChoice;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import picocli.CommandLine.Option;

/** {@code --install-nvidia-toolkit} of setup and prepare ({@code @Mixin}). */
public class ToolkitOption {

    @Option(names = "--install-nvidia-toolkit", paramLabel = "auto|true|false",
            description = "auto: install when an NVIDIA GPU is present; true: always; false: never, and no NVIDIA spec. "
                    + "Default: the last choice prepare saved (INSTALL_NVIDIA_TOOLKIT in /etc/rediacc/gpu/node-agent.env), "
                    + "else agent.install-nvidia-toolkit (auto).")
    String installNvidiaToolkit;

    /**
     * The policy asked for, else the one saved on the machine (so {@code renet setup} repeats the operator's last
     * choice, as the boot-time unit does), else the configured one; IllegalArgumentException names what is wrong.
     */
    ToolkitPolicy policy(AgentConfig config, HostRoot host) {
        if (installNvidiaToolkit != null) {
            return ToolkitPolicy.parse(installNvidiaToolkit);
        }
        return SavedToolkitChoice.read(host).orElseGet(() -> ToolkitPolicy.parse(config.installNvidiaToolkit()));
    }
}
