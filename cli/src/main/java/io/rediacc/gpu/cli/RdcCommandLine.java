package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import picocli.CommandLine;

/**
 * How rdc reports problems: a usage error is one line and exit 2; a failure is one line and its
 * exit code; nothing ends in a stack trace (set RDC_DEBUG=1 to see one). Under {@code -o json|yaml}
 * each also prints one error document on stdout ({@link ErrorOutput}).
 */
public final class RdcCommandLine {

    private RdcCommandLine() {
    }

    /** Applies rdc's error handling and help layout to a command line of {@link RdcCommand}. */
    public static CommandLine configure(CommandLine commandLine) {
        return commandLine
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setUsageHelpWidth(100)
                .setParameterExceptionHandler(new UsageErrors())
                .setExecutionExceptionHandler(new Failures());
    }

    // Named classes, not method references: a lambda of picocli's handler interfaces makes the class-data
    // sharing dump link those Java 5 interfaces, and a linked Java 5 class is left out of the archive with
    // everything that implements it (loaded and verified again at every start).

    /** A usage error: one line and exit 2. */
    private static final class UsageErrors implements CommandLine.IParameterExceptionHandler {
        @Override
        public int handleParseException(CommandLine.ParameterException e, String[] args) {
            return usageError(e, args);
        }
    }

    /** A failed command: one line and its exit code. */
    private static final class Failures implements CommandLine.IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
            return failed(e, command, parsed);
        }
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        String line = oneLine(e.getMessage()) + didYouMean(e) + " (see '" + command.getCommandSpec().qualifiedName() + " --help')";
        command.getErr().println(line);
        command.getErr().flush();
        ErrorOutput.print(command, java.util.List.of(args), ExitCodes.USAGE, line, null, 0);
        return ExitCodes.USAGE;
    }

    /** For a mistyped subcommand or option: {@code ; did you mean grant?} (picocli's closest names), else nothing. */
    static String didYouMean(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched) {
            java.util.List<String> suggestions = unmatched.getSuggestions();
            if (suggestions != null && !suggestions.isEmpty()) {
                return "; did you mean " + String.join(" or ", suggestions.subList(0, Math.min(3, suggestions.size()))) + "?";
            }
        }
        return "";
    }

    private static int failed(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        java.util.List<String> args = parsed == null ? java.util.List.of() : parsed.originalArgs();
        if (e instanceof Failure failure) {
            command.getErr().println(oneLine(failure.getMessage()));
            command.getErr().flush();
            ErrorOutput.print(command, args, failure.exitCode(), oneLine(failure.getMessage()), failure.serviceError(),
                    failure.status());
            return failure.exitCode();
        }
        String line = "rdc failed unexpectedly: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + oneLine(e.getMessage())) + " (set RDC_DEBUG=1 for details)";
        command.getErr().println(line);
        if (System.getenv("RDC_DEBUG") != null) {
            e.printStackTrace(command.getErr());
        }
        command.getErr().flush();
        ErrorOutput.print(command, args, ExitCodes.ERROR, line, null, 0);
        return ExitCodes.ERROR;
    }

    private static String oneLine(String message) {
        return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").strip();
    }
}
