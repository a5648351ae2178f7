package io.rediacc.gpu.agent.cli;

import io.quarkus.picocli.runtime.annotations.TopCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/** {@code node-agent [setup|prepare|key|run|fixture]}; without a command it runs the long-running mode. */
@TopCommand
@Command(name = "node-agent", mixinStandardHelpOptions = true, versionProvider = AgentVersion.class,
        description = "Detects this machine's GPUs, writes /etc/rediacc/gpu/inventory.json and CDI specs (setup), "
                + "and publishes the machine's inventory to Kafka (run, the default).",
        subcommands = {SetupCommand.class, PrepareCommand.class, KeyCommand.class, RunCommand.class})
public class AgentCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        // the instance picocli built (and injected its @Spec into), not a fresh bean
        return ((RunCommand) spec.subcommands().get("run").getCommand()).call();
    }
}
