package io.rediacc.gpu.inventory.messaging;

/** A record that can never be applied (not JSON, wrong key, invalid machine name...): logged and skipped. */
public class RejectedRecordException extends RuntimeException {
    public RejectedRecordException(String message) {
        super(message);
    }
}
