package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.cli.failure.ServiceError;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;
import picocli.CommandLine;

import java.util.List;

/**
 * A failed command under {@code -o json} or {@code -o yaml}: besides its line on stderr, one error
 * document on stdout, so a script that reads stdout always gets a document it can parse:
 * {@code {"error", "detail", "hint", "status", "exitCode"}} — the service's error code, detail and
 * hint and the HTTP status when a service refused, else rdc's own ({@code usage}, {@code error}, ...)
 * without hint and status; always the exit code.
 */
final class ErrorOutput {

    private ErrorOutput() {
    }

    /** Prints the error document when the command line asked for JSON or YAML; nothing for tables. */
    static void print(CommandLine command, List<String> args, int exitCode, String message, ServiceError serviceError,
                      int status) {
        OutputFormat format = requestedFormat(args);
        if (format == OutputFormat.table) {
            return;
        }
        // a node factory, not the events' mapper: a usage error under -o json need not build that mapper
        ObjectNode error = JsonNodeFactory.instance.objectNode();
        // absent rather than null, as in all of rdc's documents (YAML leaves nulls out too)
        if (serviceError != null) {
            putIfPresent(error, "error", serviceError.error());
            putIfPresent(error, "detail", serviceError.detail());
            putIfPresent(error, "hint", serviceError.hint());
        } else {
            error.put("error", code(exitCode));
            error.put("detail", message);
        }
        if (status > 0) {
            error.put("status", status);
        }
        error.put("exitCode", exitCode);
        Documents.print(command.getOut(), format, error);
    }

    /**
     * The {@code -o}/{@code --output} the arguments name (last one wins, as picocli reads them);
     * read from the arguments because a usage error may stop parsing before the option is reached.
     */
    static OutputFormat requestedFormat(List<String> args) {
        String value = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if ((arg.equals("-o") || arg.equals("--output")) && i + 1 < args.size()) {
                value = args.get(++i);
            } else if (arg.startsWith("--output=")) {
                value = arg.substring("--output=".length());
            } else if (arg.startsWith("-o") && arg.length() > 2 && !arg.startsWith("--")) {
                value = arg.substring(2).replaceFirst("^=", "");
            } else if (arg.equals("--")) {
                break;
            }
        }
        if (value == null) {
            return OutputFormat.table;
        }
        for (OutputFormat f : OutputFormat.values()) {
            if (f.name().equalsIgnoreCase(value)) {
                return f;
            }
        }
        return OutputFormat.table;
    }

    private static void putIfPresent(ObjectNode node, String field, String value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    /** rdc's own error code for an exit code, where no service named one. */
    static String code(int exitCode) {
        return switch (exitCode) {
            case ExitCodes.USAGE -> "usage";
            case ExitCodes.NOT_FOUND -> "not-found";
            case ExitCodes.CONFLICT -> "conflict";
            case ExitCodes.NOT_ENFORCED -> "not-enforced";
            case ExitCodes.SSH_REFUSED -> "ssh-refused";
            case ExitCodes.MACHINE_FAILED -> "machine-setup-failed";
            default -> "error";
        };
    }
}
