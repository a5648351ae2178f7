package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.machine.MachinePrepare;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code node-agent prepare}: what {@code rdc machine setup} runs on the machine once the package
 * is installed. One progress line per step ({@code step: changed|unchanged|failed|refused - why}),
 * then {@code @}-lines rdc reads (the inventory's timestamp, the number of repos).
 */
@Command(name = "prepare", mixinStandardHelpOptions = true,
        description = "The machine side of 'rdc machine setup': node-agent setup, every repo daemon's daemon.json "
                + "(CDI on, cdi-spec-dirs [/etc/cdi], runc), the nvidia-persistenced socket where each daemon looks, "
                + "and node-agent/docker-gate enabled and running. Each step says changed or unchanged.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:every step done", "1:a step failed or refused (its line says what to do)",
                "2:invalid options, root or machine name", "3:the machine's files could not be written"})
public class PrepareCommand implements Callable<Integer> {

    @Mixin
    ToolkitOption toolkit;

    @Mixin
    MachineOptions target;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private final AgentConfig config;
    private final SetupService setup;

    public PrepareCommand(AgentConfig config, SetupService setup) {
        this.config = config;
        this.setup = setup;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ToolkitPolicy policy;
        AgentSettings settings;
        try {
            policy = toolkit.policy(config);
            settings = target.settings(config);
        } catch (IllegalArgumentException e) {
            err.println("node-agent prepare: " + e.getMessage());
            err.flush();
            return 2;
        }
        MachinePrepare.Result result;
        try {
            result = new MachinePrepare(setup).run(settings, policy, step -> {
                out.println(step.line());
                out.flush();
            });
        } catch (InvalidIdentifierException e) {
            err.println("node-agent prepare: " + e.getMessage() + " (set it with --machine or agent.machine)");
            err.flush();
            return 2;
        } catch (IOException e) {
            err.println("node-agent prepare: " + WriteFailure.describe(e, settings.host()));
            err.flush();
            return WriteFailure.EXIT_CODE;
        }
        out.println("@machine " + result.inventory().machine());
        out.println("@inventory-generated-at " + result.inventory().generatedAt());
        out.println("@repos " + result.inventory().repos().size());
        publicKey(settings.host()).ifPresent(key -> out.println("@public-key " + key));
        out.flush();
        return result.anyBad() ? 1 : 0;
    }

    /** The machine's public key for rdc to register: X.509 DER in base64, one line. */
    static java.util.Optional<String> publicKey(io.rediacc.gpu.agent.host.HostRoot host) {
        try {
            var pair = KeyPairFile.read(host.path(KeyPairFile.MACHINE_KEY));
            return java.util.Optional.of(java.util.Base64.getEncoder().encodeToString(pair.getPublic().getEncoded()));
        } catch (RuntimeException e) {
            return java.util.Optional.empty(); // the machine key step said why
        }
    }
}
