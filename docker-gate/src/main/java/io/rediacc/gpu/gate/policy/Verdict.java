package io.rediacc.gpu.gate.policy;

/** The answer for a buffered body or a stored container configuration. */
public sealed interface Verdict permits Verdict.Allow, Verdict.Deny {

    /** Forward the request, byte for byte as inspected. */
    record Allow() implements Verdict {
    }

    /** Answer with the refusal; nothing reaches the daemon. */
    record Deny(Refusal refusal) implements Verdict {
    }
}
