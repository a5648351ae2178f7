package io.rediacc.gpu.gate.policy;

/**
 * Thrown by the rule classes to stop inspection at the first refusal; {@link GatePolicy} turns it
 * into a verdict. Carries no stack trace: it is control flow, and hostile input can trigger it at will.
 */
final class PolicyRefusal extends RuntimeException {

    private final transient Refusal refusal;

    PolicyRefusal(Refusal refusal) {
        super(refusal.message(), null, false, false);
        this.refusal = refusal;
    }

    Refusal refusal() {
        return refusal;
    }

    static PolicyRefusal forbidden(String rule, String device, RefusalText text) {
        return new PolicyRefusal(new Refusal(403, rule, device, text));
    }

    static PolicyRefusal badRequest(String rule, RefusalText text) {
        return new PolicyRefusal(new Refusal(400, rule, null, text));
    }
}
