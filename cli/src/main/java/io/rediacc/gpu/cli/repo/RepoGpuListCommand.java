package io.rediacc.gpu.cli.repo;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;
import io.rediacc.gpu.cli.output.Table;
import io.rediacc.gpu.contracts.api.RepoGrantsView;
import io.rediacc.gpu.contracts.api.RepoGrantsView.RepoGrant;
import io.rediacc.gpu.contracts.identity.RepoRef;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.util.concurrent.Callable;

/** {@code rdc repo gpu list <repo-ref>}. */
public class RepoGpuListCommand implements Callable<Integer> {

    private final PositionalParamSpec repo = Commands.parameter("0", "<repo-ref>", "The repo: name, or name@machine");
    private CommandSpec spec;

    private RepoGpuListCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        RepoGpuListCommand command = new RepoGpuListCommand();
        command.spec = Commands.command(command, "list",
                        new String[]{"The CDI device names a repo is granted (grant-service's record)."},
                        "  rdc repo gpu list train-a@gpu-host-1",
                        "  rdc repo gpu list train-a            # when the name is unique in the fleet",
                        "  rdc repo gpu list gpu-a@wsl-gpu -o yaml")
                .addPositional(command.repo);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        RepoRef ref = CommandInput.repo(repo.getValue());
        JsonNode answer = session.grants().repoGrants(ref).orFail().json();
        return session.show(answer, out -> table(session, Json.mapper().convertValue(answer, RepoGrantsView.class), out));
    }

    private static void table(Session session, RepoGrantsView grants, java.io.PrintWriter out) {
        String who = grants.repo() + "@" + grants.machine();
        if (grants.grants().isEmpty()) {
            out.println(who + " has no GPU grants.");
        } else {
            // a repo gone from its machine keeps its grants until they are revoked (by name)
            String repoCell = grants.repoGone() ? who + " (repo gone)" : who;
            Table table = session.table("REPO", "DEVICE", "EXCLUSIVE", "GRANTED BY", "GRANTED AT", "EXPIRES");
            for (RepoGrant g : grants.grants()) {
                table.row(repoCell, g.device(), g.exclusive() ? "yes" : "no", g.grantedBy(), g.grantedAt(),
                        g.expiresAt() == null ? "never" : g.expiresAt());
            }
            table.print(out);
            if (grants.repoGone()) {
                out.println(grants.repo() + " is no longer on " + grants.machine()
                        + "; revoke its grants with: rdc repo gpu revoke " + who + " --device <name>");
            }
        }
    }
}
