package io.rediacc.gpu.gate.policy;

import java.util.Objects;

/**
 * What a refusal says: {@code message}, the sentence the docker CLI prints (it names the fix too),
 * and {@code fix} alone, the command or setting that fixes it, which the gate's error body, its
 * decision events and the dashboard carry beside the message so no reader has to dig it out of
 * the sentence.
 */
public record RefusalText(String message, String fix) {

    public RefusalText {
        check(message, fix);
    }

    /** Every refusal has a message and a fix that is not empty: one without is a bug, found where it is made. */
    static void check(String message, String fix) {
        Objects.requireNonNull(message, "message");
        if (fix == null || fix.isBlank()) {
            throw new IllegalArgumentException("a refusal names its fix: " + message);
        }
    }

    /** The usual shape: the reason, then "; " and the fix. */
    static RefusalText of(String reason, String fix) {
        return new RefusalText(reason + "; " + fix, fix);
    }

    /** The same refusal with {@code more} (a detail, a note) after its message. */
    RefusalText appended(String more) {
        return new RefusalText(message + more, fix);
    }
}
