package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.Session;
import io.rediacc.gpu.cli.client.GrantClient;
import io.rediacc.gpu.cli.client.GrantViews.RevokeResult;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code rdc repo gpu revoke <repo-ref> --device <cdi-name>...}. */
@Command(name = "revoke", mixinStandardHelpOptions = true,
        description = {"Revoke CDI device names from a repo. Returns once the machine's gates enforce the "
                + "revocation (or says it is not yet enforced, exit 5); the next Docker request is refused.",
                "With several --device, each is revoked on its own: one line per device, and the exit code of the "
                        + "most severe outcome."},
        footerHeading = "%nExamples:%n",
        footer = {"  rdc repo gpu revoke train-a@gpu-host-1 --device nvidia.com/gpu=0",
                "  rdc repo gpu revoke gpu-a@wsl-gpu --device nvidia.com/gpu=all --wait 0",
                "  rdc repo gpu revoke train-a --device nvidia.com/gpu=0 --device nvidia.com/gpu=1"})
public class RevokeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<repo-ref>", description = "The repo: name, or name@machine")
    String repo;

    @Option(names = "--device", required = true, paramLabel = "<cdi-name>",
            description = "A granted CDI device name, e.g. nvidia.com/gpu=0; repeat for several")
    List<String> devices;

    @Option(names = "--reason", paramLabel = "<text>",
            description = "Why (a ticket, a note): recorded in the history (rdc audit)")
    String reason;

    @Option(names = "--wait", paramLabel = "<duration>",
            description = "How long grant-service waits for the gates: 0, 500ms, 5s, 1m (default: the service's, 5s)")
    String wait;

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        RepoRef ref = CommandInput.repo(repo);
        List<CdiName> names = CommandInput.devices(devices, session.err());
        Duration waitFor = CommandInput.wait(wait);
        GrantClient grants = session.grants();
        return DeviceOutcome.run(session, names, name -> grants.revoke(ref, name, waitFor, reason),
                (name, reply) -> line(name, reply, ref));
    }

    private static String line(CdiName device, Reply reply, RepoRef ref) {
        RevokeResult result = reply.as(RevokeResult.class);
        String repoRef = DeviceOutcome.repoRef(result.repo(), result.machine(), ref);
        String line = "revoked " + device + " from " + repoRef + (reply.status() == 202 ? ", not yet enforced" : "");
        if (result.enforcement() != null) {
            line += ": " + result.enforcement();
        }
        return line;
    }
}
