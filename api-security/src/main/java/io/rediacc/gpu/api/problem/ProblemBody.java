package io.rediacc.gpu.api.problem;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every error answer of the REST APIs, RFC 9457 {@code application/problem+json}: {@code type},
 * {@code title}, {@code status}, {@code detail}, the product's {@code hint}, {@code error} (the
 * code, the last segment of {@code type}), {@code requestId} (also the {@code X-Request-Id} header),
 * and named extension fields at the top level ({@code machine}, {@code holders}, {@code grantable}…).
 */
@Schema(name = "Problem", description = "An error (RFC 9457 problem details): what was wrong (detail), how to fix it (hint); "
        + "some errors add named fields such as machine, holders or grantable. Codes: docs/ERRORS.md",
        additionalProperties = Schema.True.class,
        requiredProperties = {"type", "title", "status", "detail", "hint", "error", "requestId"})
@JsonPropertyOrder({"type", "title", "status", "detail", "hint", "error", "requestId"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ProblemBody {

    /** The media type of every error answer. */
    public static final String MEDIA_TYPE = "application/problem+json";

    // plain values, typed as the JSON is: the OpenAPI scanner reads field types too
    private final String type;
    private final String title;
    private final int status;
    private final String detail;
    private final String hint;
    private final String error;
    private final String requestId;
    private final Map<String, Object> extensions;

    public ProblemBody(ProblemType type, int status, String detail, String hint, String requestId, Map<String, Object> extensions) {
        this.type = type.uri().toString();
        this.title = type.title();
        this.error = type.code();
        this.status = status;
        this.detail = detail;
        this.hint = hint;
        this.requestId = requestId;
        this.extensions = new LinkedHashMap<>(extensions);
    }

    @Schema(required = true, format = "uri", examples = ProblemType.BASE + "exclusive-conflict",
            description = "identifies the kind of error: " + ProblemType.BASE + "<error>")
    public String getType() {
        return type;
    }

    @Schema(required = true, examples = "Exclusive reservation in the way", description = "the kind of error, for people")
    public String getTitle() {
        return title;
    }

    @Schema(required = true, examples = "409", description = "the HTTP status")
    public int getStatus() {
        return status;
    }

    @Schema(required = true, description = "what was wrong, naming the things involved")
    public String getDetail() {
        return detail;
    }

    @Schema(required = true, description = "how to fix it")
    public String getHint() {
        return hint;
    }

    @Schema(required = true, examples = "exclusive-conflict", description = "the error code, the last segment of type")
    public String getError() {
        return error;
    }

    @Schema(required = true, description = "this request's id, also in the X-Request-Id header and the service's log")
    public String getRequestId() {
        return requestId;
    }

    @JsonAnyGetter
    @Schema(hidden = true)
    public Map<String, Object> getExtensions() {
        return extensions;
    }
}
