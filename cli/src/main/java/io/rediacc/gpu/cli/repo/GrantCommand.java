package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.GrantClient;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.repo.DeviceChangeOptions.DeviceChange;
import io.rediacc.gpu.contracts.api.GrantResponse;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code rdc repo gpu grant <repo-ref> --device <cdi-name>... [--exclusive]}. */
public class GrantCommand implements Callable<Integer> {

    private final DeviceChangeOptions change = new DeviceChangeOptions();
    private final OptionSpec exclusive = Commands.flag("--exclusive", "Reserve each name for this repo alone");
    private final OptionSpec expiresIn = Commands.option("--expires-in", "<duration>", String.class,
            "Revoke the grant after this long: 30m, 8h, 7d (grant-service revokes it itself)");
    private final OptionSpec until = Commands.option("--until", "<instant>", String.class,
            "Revoke the grant at this time (ISO-8601, e.g. 2026-12-01T18:00:00Z); instead of --expires-in");
    private CommandSpec spec;

    private GrantCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        GrantCommand command = new GrantCommand();
        command.spec = Commands.command(command, "grant",
                        new String[]{"Grant CDI device names to a repo. Each name is checked against the machine's CDI devices; "
                                + "the call returns once the machine's gates enforce the grant (or says it is recorded but not yet "
                                + "enforced, exit 5).",
                                "With several --device, each is granted on its own: one line per device, and the exit code of the "
                                        + "most severe outcome."},
                        "  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0",
                        "  rdc repo gpu grant gpu-a@wsl-gpu --device nvidia.com/gpu=all --exclusive",
                        "  rdc repo gpu grant train-a --device nvidia.com/gpu=0 --device nvidia.com/gpu=1 --wait 10s",
                        "  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=1 --expires-in 8h --reason ticket-123",
                        "  rdc repo gpu grant render-b@amd-1 --device rediacc.io/amd=gpu0 --device rediacc.io/dri=renderD128")
                .addMixin(DeviceChangeOptions.MIXIN, command.change.spec())
                .addOption(command.exclusive).addOption(command.expiresIn).addOption(command.until);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        DeviceChange asked = change.read(session.err());
        String expiry = CommandInput.expiresIn(expiresIn.getValue());
        Instant at = CommandInput.instant("--until", until.getValue());
        if (expiry != null && at != null) {
            throw Failure.usage("give --expires-in or --until, not both");
        }
        GrantClient grants = session.grants();
        boolean exclusive = Commands.isSet(this.exclusive);
        return DeviceOutcome.run(session, asked.devices(),
                name -> grants.grant(asked.repo(), name, exclusive, asked.waitFor(), asked.reason(), expiry, at),
                (name, reply) -> line(name, reply, asked.repo()));
    }

    private static String line(CdiName device, Reply reply, RepoRef ref) {
        GrantResponse result = reply.as(GrantResponse.class);
        String repoRef = DeviceOutcome.repoRef(result.repo(), result.machine(), ref);
        String mode = result.exclusive() ? " (exclusive)" : "";
        String line = switch (reply.status()) {
            case 201 -> "granted " + device + " to " + repoRef + mode;
            case 202 -> "recorded " + device + " for " + repoRef + mode + ", not yet enforced";
            default -> device + " is granted to " + repoRef + mode;
        };
        if (result.expiresAt() != null) {
            line += ", expires " + result.expiresAt();
        }
        if (result.enforcement() != null) {
            line += ": " + result.enforcement();
        }
        if (!result.overlaps().isEmpty()) {
            line += " (shares a card with " + result.overlaps().stream()
                    .map(o -> o.repo() + "'s " + o.device() + (o.exclusive() ? " (exclusive)" : ""))
                    .collect(Collectors.joining(", ")) + ")";
        }
        return line;
    }
}
