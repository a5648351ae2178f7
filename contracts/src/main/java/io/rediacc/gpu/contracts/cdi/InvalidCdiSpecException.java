package io.rediacc.gpu.contracts.cdi;

/** A CDI spec file that the strict loader refuses; the message names the file and the field. */
public final class InvalidCdiSpecException extends RuntimeException {
    public InvalidCdiSpecException(String message) {
        super(message);
    }

    public InvalidCdiSpecException(String message, Throwable cause) {
        super(message, cause);
    }
}
