package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.contracts.api.RemovalView;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code rdc machine remove <machine> [--revoke-grants]}. */
public class MachineRemoveCommand implements Callable<Integer> {

    private final PositionalParamSpec machine = Commands.parameter("0", "<machine>", "The machine to remove");
    private final OptionSpec revokeGrants = Commands.flag("--revoke-grants", "Revoke the machine's grants with it");
    private final OptionSpec reason = Commands.option("--reason", "<text>", String.class, "Why: recorded with each revoked grant");
    private CommandSpec spec;

    private MachineRemoveCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        MachineRemoveCommand command = new MachineRemoveCommand();
        command.spec = Commands.command(command, "remove",
                        new String[]{"Remove a machine from the fleet (operator role). Refused while it holds grants unless "
                                + "--revoke-grants; then its grants are revoked (each recorded in the history), its inventory and "
                                + "gate records are tombstoned and both services forget it.",
                                "Stop its node-agent first: a machine that publishes an inventory again rejoins the fleet."},
                        "  rdc machine remove gpu-host-9",
                        "  rdc machine remove gpu-host-9 --revoke-grants --reason decommissioned")
                .addPositional(command.machine).addOption(command.revokeGrants).addOption(command.reason);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        String machine = this.machine.getValue();
        try {
            Identifiers.machine(machine);
        } catch (InvalidIdentifierException e) {
            throw Failure.usage(e.getMessage());
        }
        Reply reply = session.grants().removeMachine(machine, Commands.isSet(revokeGrants), this.reason.<String>getValue()).orFail();
        int shown = session.show(reply.json(), out -> line(reply.as(RemovalView.class), out));
        return deleteKafkaUser(session, machine, shown);
    }

    /**
     * Then the machine's Kafka user (docs/SECURITY.md): a removed machine can no longer write. Where inventory-service
     * does not manage Kafka users, says whose job it is; a failure is a warning (the removal stands, and
     * inventory-service deletes the user when it reads the removal from Kafka) and exit 1.
     */
    private static int deleteKafkaUser(Session session, String machine, int exitCode) {
        String principal = io.rediacc.gpu.contracts.kafka.KafkaAccess.machinePrincipal(machine);
        Reply deleted;
        try {
            deleted = session.inventory().deleteKafkaUser(machine);
        } catch (io.rediacc.gpu.cli.failure.Failure e) {
            session.warn("the Kafka user " + principal + " was not deleted (" + e.getMessage() + ")" + laterDeletion(machine));
            return io.rediacc.gpu.cli.failure.ExitCodes.ERROR;
        }
        if (deleted.status() == 409 && "kafka-users-not-managed".equals(deleted.error().error())) {
            if (session.format() == io.rediacc.gpu.cli.output.OutputFormat.table) {
                session.out().println("its Kafka user " + principal + " is managed outside inventory-service: delete it there"
                        + " (kubectl delete kafkauser " + principal + ")");
                session.out().flush();
            }
            return exitCode;
        }
        if (!deleted.ok()) {
            session.warn("the Kafka user " + principal + " was not deleted: " + deleted.error().line() + laterDeletion(machine));
            return deleted.exitCode();
        }
        if (session.format() == io.rediacc.gpu.cli.output.OutputFormat.table) {
            session.out().println("its Kafka user " + principal + " is deleted: the machine can no longer log in to Kafka");
            session.out().flush();
        }
        return exitCode;
    }

    private static String laterDeletion(String machine) {
        return "; inventory-service deletes it when it reads the removal from Kafka (retrying while Kafka refuses);"
                + " to delete it now: DELETE /api/v1/machines/" + machine + "/kafka-user on inventory-service";
    }

    private static void line(RemovalView removal, java.io.PrintWriter out) {
        String revoked = removal.revoked().isEmpty() ? "it held no grants"
                : "revoked " + removal.revokedCount() + " grant(s): " + removal.revoked().stream()
                .map(g -> g.device() + " of " + g.repoName()).collect(Collectors.joining(", "));
        out.println("removed machine " + removal.machine() + ": " + revoked
                + (removal.tombstonedGates().isEmpty() ? "; its inventory is tombstoned"
                : "; its inventory and gate records are tombstoned"));
    }
}
