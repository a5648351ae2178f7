package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;

/**
 * A record that can never be applied (not JSON, wrong key, invalid machine name...): logged and skipped,
 * counted by its refusal's typed reason.
 */
public class RejectedRecordException extends RuntimeException {

    private final transient RecordRefusal refusal;

    public RejectedRecordException(RecordRefusal refusal) {
        super(refusal.detail());
        this.refusal = refusal;
    }

    /** A refusal without a reason of its own ({@link DropReason#INVALID}): names, sizes, unreadable JSON. */
    public RejectedRecordException(String message) {
        this(RecordRefusal.invalid(message));
    }

    public RejectedRecordException(DropReason reason, String message) {
        this(new RecordRefusal(reason, message));
    }

    /** Why the record is dropped: the reason it is counted by, and the sentence it is logged with. */
    public RecordRefusal refusal() {
        return refusal;
    }
}
