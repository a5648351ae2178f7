package io.rediacc.gpu.cli.failure;

import io.rediacc.gpu.cli.failure.ServiceError;

/**
 * Ends a command with one line on stderr and an exit code; never a stack trace. Under
 * {@code -o json|yaml} the same failure is also one error document on stdout ({@link ErrorOutput}).
 */
public class Failure extends RuntimeException {

    private final int exitCode;
    private final ServiceError serviceError;
    private final int status;

    public Failure(int exitCode, String message) {
        this(exitCode, message, null, 0);
    }

    /** A service's refusal: its error as the service said it, and the HTTP status. */
    public Failure(int exitCode, String message, ServiceError serviceError, int status) {
        super(message, null, false, false);
        this.exitCode = exitCode;
        this.serviceError = serviceError;
        this.status = status;
    }

    public static Failure usage(String message) {
        return new Failure(ExitCodes.USAGE, message);
    }

    public int exitCode() {
        return exitCode;
    }

    /** The service's error when a service refused; null for rdc's own failures. */
    public ServiceError serviceError() {
        return serviceError;
    }

    /** The HTTP status of the refusal; 0 when no service answered. */
    public int status() {
        return status;
    }
}
