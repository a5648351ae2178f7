package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.GrantClient;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.repo.DeviceChangeOptions.DeviceChange;
import io.rediacc.gpu.contracts.api.RevokeResponse;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;
import picocli.CommandLine.Model.CommandSpec;

import java.util.concurrent.Callable;

/** {@code rdc repo gpu revoke <repo-ref> --device <cdi-name>...}. */
public class RevokeCommand implements Callable<Integer> {

    private final DeviceChangeOptions change = new DeviceChangeOptions();
    private CommandSpec spec;

    private RevokeCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        RevokeCommand command = new RevokeCommand();
        command.spec = Commands.command(command, "revoke",
                        new String[]{"Revoke CDI device names from a repo. Returns once the machine's gates enforce the "
                                + "revocation (or says it is not yet enforced, exit 5); the next Docker request is refused.",
                                "With several --device, each is revoked on its own: one line per device, and the exit code of the "
                                        + "most severe outcome."},
                        "  rdc repo gpu revoke train-a@gpu-host-1 --device nvidia.com/gpu=0",
                        "  rdc repo gpu revoke gpu-a@wsl-gpu --device nvidia.com/gpu=all --wait 0",
                        "  rdc repo gpu revoke train-a --device nvidia.com/gpu=0 --device nvidia.com/gpu=1")
                .addMixin(DeviceChangeOptions.MIXIN, command.change.spec());
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        DeviceChange asked = change.read(session.err());
        GrantClient grants = session.grants();
        return DeviceOutcome.run(session, asked.devices(), name -> grants.revoke(asked.repo(), name, asked.waitFor(), asked.reason()),
                (name, reply) -> line(name, reply, asked.repo()));
    }

    private static String line(CdiName device, Reply reply, RepoRef ref) {
        RevokeResponse result = reply.as(RevokeResponse.class);
        String repoRef = DeviceOutcome.repoRef(result.repo(), result.machine(), ref);
        String line = "revoked " + device + " from " + repoRef + (reply.status() == 202 ? ", not yet enforced" : "");
        if (result.enforcement() != null) {
            line += ": " + result.enforcement();
        }
        return line;
    }
}
