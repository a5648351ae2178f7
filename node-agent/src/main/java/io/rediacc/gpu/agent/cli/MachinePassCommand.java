package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * What {@code setup} and {@code prepare} share: their options (toolkit, root, machine, the grant guard), one pass over
 * the machine ({@link #pass}), and its failures as the exit codes both document (2: invalid options or
 * machine name, 3: the machine's files could not be written), each with one line on stderr.
 */
abstract class MachinePassCommand implements Callable<Integer> {

    /** The pass itself: detection and writing with the settings and toolkit policy the options gave. */
    @FunctionalInterface
    interface Work<T> {
        T run(AgentSettings settings, ToolkitPolicy policy) throws IOException;
    }

    /** What the pass gave and the settings it ran with; or, with a null result, the exit code of why it did not run. */
    record Outcome<T>(T result, AgentSettings settings, int exitCode) {

        boolean failed() {
            return result == null;
        }
    }

    @Mixin
    ToolkitOption toolkit;

    @Mixin
    MachineOptions target;

    @Mixin
    GuardOptions guard;

    @Spec
    CommandLine.Model.CommandSpec spec;

    protected final AgentConfig config;
    protected final SetupService setup;

    MachinePassCommand(AgentConfig config, SetupService setup) {
        this.config = config;
        this.setup = setup;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Reads the options and runs {@code work} with them; a failure is on stderr, named after the command. */
    <T> Outcome<T> pass(Work<T> work) {
        String command = "node-agent " + spec.name();
        ToolkitPolicy policy;
        AgentSettings settings;
        try {
            settings = target.settings(config);
            policy = toolkit.policy(config, settings.host());
        } catch (IllegalArgumentException e) {
            return refused(command + ": " + e.getMessage(), 2, null);
        }
        try {
            return new Outcome<>(work.run(settings, policy), settings, 0);
        } catch (InvalidIdentifierException e) {
            return refused(command + ": " + e.getMessage() + " (set it with --machine or agent.machine)", 2, settings);
        } catch (IOException e) {
            return refused(command + ": " + WriteFailure.describe(e, settings.host()), WriteFailure.EXIT_CODE, settings);
        }
    }

    private <T> Outcome<T> refused(String line, int exitCode, AgentSettings settings) {
        err().println(line);
        err().flush();
        return new Outcome<>(null, settings, exitCode);
    }
}
