package io.rediacc.gpu.grants.rest;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every error body: {@code {"error": code, "detail": what was wrong, "hint": how to fix it}}, plus
 * structured details where they help a program (holders, grantable names, closest match…).
 */
@Schema(description = "An error: a short code, what was wrong, how to fix it; some errors add details such as holders or grantable names")
@JsonPropertyOrder({"error", "detail", "hint"})
public final class ApiError {

    private final String error;
    private final String detail;
    private final String hint;
    private final Map<String, Object> details;

    public ApiError(String error, String detail, String hint, Map<String, Object> details) {
        this.error = error;
        this.detail = detail;
        this.hint = hint;
        this.details = new LinkedHashMap<>(details);
    }

    public ApiError(String error, String detail, String hint) {
        this(error, detail, hint, Map.of());
    }

    @Schema(examples = "exclusive-conflict")
    public String getError() {
        return error;
    }

    public String getDetail() {
        return detail;
    }

    public String getHint() {
        return hint;
    }

    @JsonAnyGetter
    public Map<String, Object> getDetails() {
        return details;
    }
}
