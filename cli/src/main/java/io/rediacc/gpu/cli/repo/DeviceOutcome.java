package io.rediacc.gpu.cli.repo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;

import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What one {@code --device} of a grant or revoke came to: one line for people, the service's
 * answer for programs, and the exit code.
 */
record DeviceOutcome(String device, int status, int exitCode, String line, JsonNode answer) {

    boolean failed() {
        return exitCode != ExitCodes.OK && exitCode != ExitCodes.NOT_ENFORCED;
    }

    /**
     * The request/print path grant and revoke share: one call per device ({@code call}; an unreachable
     * service ends the command there, with its one line), a failed answer as the service's error line,
     * a successful one as {@code success} words it; then {@link #report}.
     */
    static int run(Session session, List<CdiName> devices, Function<CdiName, Reply> call,
                   BiFunction<CdiName, Reply, String> success) {
        List<DeviceOutcome> outcomes = new ArrayList<>();
        for (CdiName device : devices) {
            Reply reply = call.apply(device);
            outcomes.add(reply.ok()
                    ? new DeviceOutcome(device.qualified(), reply.status(), reply.exitCode(), success.apply(device, reply), reply.json())
                    : new DeviceOutcome(device.qualified(), reply.status(), reply.exitCode(),
                    device + ": " + reply.error().line(), reply.document()));
        }
        return report(session, outcomes);
    }

    /** {@code repo@machine} as the service answered it, else as the caller wrote it. */
    static String repoRef(String repo, String machine, RepoRef asked) {
        return repo != null && machine != null ? repo + "@" + machine : asked.toString();
    }

    /** Prints every outcome (successes on stdout, refusals on stderr) and returns the most severe exit code. */
    static int report(Session session, List<DeviceOutcome> outcomes) {
        int exit = ExitCodes.OK;
        for (DeviceOutcome o : outcomes) {
            exit = ExitCodes.worst(exit, o.exitCode());
        }
        if (session.format() == OutputFormat.table) {
            for (DeviceOutcome o : outcomes) {
                (o.failed() ? session.err() : session.out()).println(o.line());
            }
            session.out().flush();
            session.err().flush();
        } else {
            ArrayNode document = Json.mapper().createArrayNode();
            for (DeviceOutcome o : outcomes) {
                ObjectNode item = document.addObject();
                item.put("device", o.device());
                item.put("status", o.status());
                item.put("exitCode", o.exitCode());
                item.set("answer", o.answer());
            }
            Documents.print(session.out(), session.format(), document);
        }
        return exit;
    }
}
