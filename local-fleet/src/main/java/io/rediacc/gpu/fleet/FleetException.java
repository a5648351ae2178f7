package io.rediacc.gpu.fleet;

/** A reason the local fleet cannot start, worded for the person who ran {@code ./fleet up}. */
final class FleetException extends RuntimeException {
    FleetException(String message) {
        super(message);
    }

    FleetException(String message, Throwable cause) {
        super(message, cause);
    }
}
