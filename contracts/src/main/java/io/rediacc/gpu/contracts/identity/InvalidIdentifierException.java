package io.rediacc.gpu.contracts.identity;

/** A machine name, repo name, repo reference or repo GUID that breaks its rule; the message says how. */
public final class InvalidIdentifierException extends IllegalArgumentException {
    public InvalidIdentifierException(String message) {
        super(message);
    }
}
