package io.rediacc.gpu.cli.repo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Session;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;

import java.util.List;

/**
 * What one {@code --device} of a grant or revoke came to: one line for people, the service's
 * answer for programs, and the exit code.
 */
record DeviceOutcome(String device, int status, int exitCode, String line, JsonNode answer) {

    boolean failed() {
        return exitCode != ExitCodes.OK && exitCode != ExitCodes.NOT_ENFORCED;
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
