package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.machine.MachinePrepare;
import io.rediacc.gpu.agent.machine.Step;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code node-agent key}: makes the machine's signing key when it is missing (never replaces it) and
 * prints its public half, for {@code rdc machine setup} to register before the services start publishing.
 */
@Command(name = "key", mixinStandardHelpOptions = true,
        description = "Create the machine's key pair (/etc/rediacc/gpu/machine-key.pem, mode 0640, group rediacc-gate) "
                + "when missing, and print '@public-key <base64 X.509>' for rdc machine setup to register.",
        exitCodeListHeading = "Exit codes:%n", exitCodeList = {"0:the key exists", "1:it could not be read or written"})
public class KeyCommand implements Callable<Integer> {

    @Option(names = "--root", paramLabel = "DIR", description = "Root of the machine's file system (default /).")
    String root;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        HostRoot host = HostRoot.of(root == null ? "/" : root);
        Step step = MachinePrepare.machineKey(host);
        out.println(step.line());
        var key = PrepareCommand.publicKey(host);
        key.ifPresent(k -> out.println("@public-key " + k));
        out.flush();
        return key.isPresent() && !step.outcome().bad() ? 0 : 1;
    }
}
