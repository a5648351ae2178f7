package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.machine.MachinePrepare;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

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
public class PrepareCommand extends MachinePassCommand {

    public PrepareCommand(AgentConfig config, SetupService setup) {
        super(config, setup);
    }

    @Override
    public Integer call() {
        PrintWriter out = out();
        // the policy it goes ahead with (given, else the one saved, else the configured one) is saved: rdc machine setup
        // passes the option only when the operator gives it, so a plain re-run keeps a hand-set false
        Outcome<MachinePrepare.Result> pass = pass((settings, policy) -> new MachinePrepare(setup).run(settings, policy,
                true, guard.guard(settings), step -> {
                    out.println(step.line());
                    out.flush();
                }, line -> {
                    out.println(line);
                    out.flush();
                }));
        if (pass.failed()) {
            return pass.exitCode();
        }
        MachinePrepare.Result result = pass.result();
        out.println("@machine " + result.inventory().machine());
        out.println("@inventory-generated-at " + result.inventory().generatedAt());
        out.println("@repos " + result.inventory().repos().size());
        publicKey(pass.settings().host()).ifPresent(key -> out.println("@public-key " + key));
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
