package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;

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

    /** The service's {@code error}/{@code detail}/{@code hint}, or what can be said without them. */
    public ServiceError error() {
        return ServiceError.of(this);
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
