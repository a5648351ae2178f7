package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.failure.ServiceError;

/** A service's answer: status and body, with the service's name and URL for messages. */
public record Reply(String service, String url, int status, String body) {

    public boolean ok() {
        return status >= 200 && status < 300;
    }

    /** The body as a JSON tree; a body that is not JSON is an error naming the service. */
    public JsonNode json() {
        return Json.tree(this);
    }

    /** The body as JSON for printing, or as a JSON string when it is not JSON (an error page). */
    public JsonNode document() {
        JsonNode node = Json.treeOrNull(body);
        return node != null ? node : com.fasterxml.jackson.databind.node.TextNode.valueOf(body == null ? "" : body);
    }

    public <T> T as(Class<T> type) {
        return Json.read(this, type);
    }

    /**
     * The service's error, read from its RFC 9457 {@code application/problem+json} body (docs/ERRORS.md): the code
     * (the last segment of {@code type}; {@code error} from a server before the problem model), {@code detail} and
     * {@code hint}; or what can be said without them.
     */
    public ServiceError error() {
        JsonNode body = Json.treeOrNull(body());
        if (body != null && body.isObject() && (body.hasNonNull("type") || body.hasNonNull("error") || body.hasNonNull("detail"))) {
            String hint = text(body, "hint");
            return new ServiceError(code(body), text(body, "detail"), hint, RdcHints.of(hint, body));
        }
        return new ServiceError("HTTP " + status, service + " at " + url + " answered HTTP " + status + " without an error body",
                null);
    }

    /** Prefix of every problem {@code type} the services write. */
    static final String PROBLEM_BASE = "https://rediacc.io/problems/";

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

    /** Fails the command with the service's error on one line and the exit code for the status. */
    public Failure failure() {
        ServiceError error = error();
        return new Failure(exitCode(), error.line(), error, status);
    }

    /** rdc's exit code for this answer. */
    public int exitCode() {
        return ok() ? ExitCodes.forStatus(status) : ExitCodes.forError(status, error().error());
    }

    /** This reply when it is a success, else the failure for it. */
    public Reply orFail() {
        if (!ok()) {
            throw failure();
        }
        return this;
    }
}
