package io.rediacc.gpu.gate.policy;

/**
 * Why a request was refused. {@code status}: 403 policy, 400 unparseable or ambiguous request,
 * 413 body too large, 503 grants not loaded yet. {@code rule} is a stable identifier (metrics,
 * decision events); {@code device} the device or host path concerned, or null; {@code message}
 * the sentence the docker CLI prints, saying what to write instead; {@code fix} that command or
 * setting alone ({@link RefusalText}), never empty.
 */
public record Refusal(int status, String rule, String device, String message, String fix) {

    public Refusal {
        RefusalText.check(message, fix);
    }

    public Refusal(int status, String rule, String device, RefusalText text) {
        this(status, rule, device, text.message(), text.fix());
    }
}
