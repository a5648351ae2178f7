package io.rediacc.gpu.cli;

/** Ends a command with one line on stderr and an exit code; never a stack trace. */
public class Failure extends RuntimeException {

    private final int exitCode;

    public Failure(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public static Failure usage(String message) {
        return new Failure(ExitCodes.USAGE, message);
    }

    public int exitCode() {
        return exitCode;
    }
}
