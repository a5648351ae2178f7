package io.rediacc.gpu.cli.failure;

/**
 * A service's refusal as rdc reports it: the error code, {@code detail} and {@code hint} of its RFC 9457
 * answer (docs/ERRORS.md; read by the client's {@code Reply.error()}), and {@code rdcHint}, that hint as
 * rdc prints it.
 */
public record ServiceError(String error, String detail, String hint, String rdcHint) {

    public ServiceError(String error, String detail, String hint) {
        this(error, detail, hint, hint);
    }

    /** One line: {@code error: detail (hint: hint)}, the hint in rdc's terms (the client's {@code RdcHints}). */
    public String line() {
        StringBuilder line = new StringBuilder();
        if (error != null) {
            line.append(error);
        }
        if (detail != null) {
            line.append(line.isEmpty() ? "" : ": ").append(detail);
        }
        if (rdcHint != null) {
            line.append(" (hint: ").append(rdcHint).append(')');
        }
        return line.toString().replace('\n', ' ');
    }
}
