package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The error body every service answers with: RFC 9457 {@code application/problem+json} (docs/ERRORS.md),
 * read for its code (the last segment of {@code type}; {@code error} from a server before the problem
 * model), {@code detail} and {@code hint}; {@code rdcHint} is that hint as rdc prints it.
 */
public record ServiceError(String error, String detail, String hint, String rdcHint) {

    public ServiceError(String error, String detail, String hint) {
        this(error, detail, hint, hint);
    }

    /** Prefix of every problem {@code type} the services write. */
    static final String PROBLEM_BASE = "https://rediacc.io/problems/";

    static ServiceError of(Reply reply) {
        JsonNode body = Json.treeOrNull(reply.body());
        if (body != null && body.isObject() && (body.hasNonNull("type") || body.hasNonNull("error") || body.hasNonNull("detail"))) {
            String hint = text(body, "hint");
            return new ServiceError(code(body), text(body, "detail"), hint, RdcHints.of(hint, body));
        }
        return new ServiceError("HTTP " + reply.status(),
                reply.service() + " at " + reply.url() + " answered HTTP " + reply.status() + " without an error body", null);
    }

    /** One line: {@code error: detail (hint: hint)}, the hint in rdc's terms ({@link RdcHints}). */
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

    /** The error code: the last segment of the problem type, or the older {@code error} field. */
    private static String code(JsonNode body) {
        String type = text(body, "type");
        if (type != null && type.startsWith(PROBLEM_BASE) && type.length() > PROBLEM_BASE.length()) {
            return type.substring(PROBLEM_BASE.length());
        }
        return text(body, "error");
    }

    private static String text(JsonNode body, String field) {
        JsonNode node = body.get(field);
        return node == null || node.isNull() ? null : node.asText();
    }
}
