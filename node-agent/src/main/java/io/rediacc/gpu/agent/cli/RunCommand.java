package io.rediacc.gpu.agent.cli;

import io.quarkus.runtime.Quarkus;
import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.publish.InventoryAgent;
import io.rediacc.gpu.agent.publish.RunningAgent;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.util.concurrent.Callable;

/** {@code node-agent run}: publish the inventory until stopped. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Publish this machine's inventory to Kafka (gpu.inventory.v1) at start, on every change of "
                + "/etc/cdi, inventory.json or the repos manifest, and on a heartbeat; runs until stopped.")
public class RunCommand implements Callable<Integer> {

    @Mixin
    MachineOptions target;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private final AgentConfig config;
    private final InventoryAgent agent;

    public RunCommand(AgentConfig config, InventoryAgent agent) {
        this.config = config;
        this.agent = agent;
    }

    @Override
    public Integer call() throws Exception {
        AgentSettings settings;
        try {
            settings = target.settings(config);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("node-agent run: " + e.getMessage());
            return 2;
        }
        try (RunningAgent running = agent.start(settings)) {
            Quarkus.waitForExit();
        } catch (InvalidIdentifierException e) {
            spec.commandLine().getErr().println("node-agent run: " + e.getMessage() + " (set it with --machine or agent.machine)");
            return 2;
        } catch (IOException e) {
            spec.commandLine().getErr().println("node-agent run: " + WriteFailure.describe(e, settings.host()));
            return WriteFailure.EXIT_CODE;
        }
        return 0;
    }
}
