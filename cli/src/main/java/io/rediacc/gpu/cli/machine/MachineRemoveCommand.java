package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;
import io.rediacc.gpu.cli.Session;
import io.rediacc.gpu.cli.client.GrantViews.Removal;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code rdc machine remove <machine> [--revoke-grants]}. */
@Command(name = "remove", mixinStandardHelpOptions = true,
        description = {"Remove a machine from the fleet (operator role). Refused while it holds grants unless "
                + "--revoke-grants; then its grants are revoked (each recorded in the history), its inventory and "
                + "gate records are tombstoned and both services forget it.",
                "Stop its node-agent first: a machine that publishes an inventory again rejoins the fleet."},
        footerHeading = "%nExamples:%n",
        footer = {"  rdc machine remove gpu-host-9",
                "  rdc machine remove gpu-host-9 --revoke-grants --reason decommissioned"})
public class MachineRemoveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<machine>", description = "The machine to remove")
    String machine;

    @Option(names = "--revoke-grants", description = "Revoke the machine's grants with it")
    boolean revokeGrants;

    @Option(names = "--reason", paramLabel = "<text>", description = "Why: recorded with each revoked grant")
    String reason;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        try {
            Identifiers.machine(machine);
        } catch (InvalidIdentifierException e) {
            throw Failure.usage(e.getMessage());
        }
        Reply reply = session.grants().removeMachine(machine, revokeGrants, reason).orFail();
        return session.show(reply.json(), out -> line(reply.as(Removal.class), out));
    }

    private static void line(Removal removal, java.io.PrintWriter out) {
        String revoked = removal.revoked().isEmpty() ? "it held no grants"
                : "revoked " + removal.revokedCount() + " grant(s): " + removal.revoked().stream()
                .map(g -> g.device() + " of " + g.repoName()).collect(Collectors.joining(", "));
        out.println("removed machine " + removal.machine() + ": " + revoked
                + "; its inventory" + (removal.tombstonedGates().isEmpty() ? "" : " and gate records")
                + " are tombstoned");
    }
}
