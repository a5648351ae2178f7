package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.config.AgentSettings;
import picocli.CommandLine.Option;

/** The options every node-agent command takes to find its machine ({@code @Mixin}): its root and its name. */
public class MachineOptions {

    @Option(names = "--root", paramLabel = "DIR", description = "Root of the machine's file system (default: agent.root, /).")
    String root;

    @Option(names = "--machine", paramLabel = "NAME",
            description = "Machine name (default: agent.machine, the repos manifest's machine, the host name).")
    String machine;

    /** The agent's settings with these options applied; IllegalArgumentException names what is wrong. */
    AgentSettings settings(AgentConfig config) {
        return AgentSettings.from(config, root, machine);
    }
}
