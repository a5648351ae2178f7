package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;

/** The error body every service answers with: {@code {"error","detail","hint"}}. */
public record ServiceError(String error, String detail, String hint) {

    static ServiceError of(Reply reply) {
        JsonNode body = Json.treeOrNull(reply.body());
        if (body != null && body.isObject() && (body.hasNonNull("error") || body.hasNonNull("detail"))) {
            return new ServiceError(text(body, "error"), text(body, "detail"), text(body, "hint"));
        }
        return new ServiceError("HTTP " + reply.status(),
                reply.service() + " at " + reply.url() + " answered HTTP " + reply.status() + " without an error body", null);
    }

    /** One line: {@code error: detail (hint: hint)}. */
    public String line() {
        StringBuilder line = new StringBuilder();
        if (error != null) {
            line.append(error);
        }
        if (detail != null) {
            line.append(line.isEmpty() ? "" : ": ").append(detail);
        }
        if (hint != null) {
            line.append(" (hint: ").append(hint).append(')');
        }
        return line.toString().replace('\n', ' ');
    }

    private static String text(JsonNode body, String field) {
        JsonNode node = body.get(field);
        return node == null || node.isNull() ? null : node.asText();
    }
}
