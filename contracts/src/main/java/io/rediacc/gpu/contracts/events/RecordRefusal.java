package io.rediacc.gpu.contracts.events;

/**
 * Why a consumer drops a record: the typed reason (the drop counter's tag, what dashboards and alerts
 * match) and a sentence for the log (never matched). {@link RecordBounds} and the signature check
 * ({@code RecordVerifier}) answer with one, or null when the record may be read.
 */
public record RecordRefusal(DropReason reason, String detail) {

    public RecordRefusal {
        if (reason == null) {
            throw new IllegalArgumentException("a refusal has a reason");
        }
    }

    /** Anything the bounds refuse that has no reason of its own: names, sizes, numbers, unreadable JSON. */
    public static RecordRefusal invalid(String detail) {
        return new RecordRefusal(DropReason.INVALID, detail);
    }
}
