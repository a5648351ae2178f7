package io.rediacc.gpu.contracts.manifest;

/** The repos manifest cannot be used; the message says which entry and field is wrong and how to fix it. */
public class InvalidManifestException extends RuntimeException {
    public InvalidManifestException(String message) {
        super(message);
    }

    public InvalidManifestException(String message, Throwable cause) {
        super(message, cause);
    }
}
