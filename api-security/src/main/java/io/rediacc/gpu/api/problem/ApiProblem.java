package io.rediacc.gpu.api.problem;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request a service will not carry out, as something the caller can act on: its {@link ProblemType},
 * what was wrong, how to fix it, and named extension fields (the machine, the holders, the grantable
 * names…). {@link ProblemMappers} answers it as {@code application/problem+json}.
 */
public class ApiProblem extends RuntimeException {

    private final ProblemType type;
    private final int status;
    private final String detail;
    private final String hint;
    private final Map<String, Object> extensions;

    public ApiProblem(ProblemType type, String detail, String hint) {
        this(type, detail, hint, Map.of());
    }

    public ApiProblem(ProblemType type, String detail, String hint, Map<String, Object> extensions) {
        this(type, type.status(), detail, hint, extensions);
    }

    /** With a status of its own: only for {@link ProblemType#REQUEST_REFUSED}, which takes the HTTP layer's. */
    public ApiProblem(ProblemType type, int status, String detail, String hint, Map<String, Object> extensions) {
        super(detail, null, false, false);
        this.type = type;
        this.status = status;
        this.detail = detail;
        this.hint = hint;
        this.extensions = Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
    }

    public ProblemType type() {
        return type;
    }

    public int status() {
        return status;
    }

    /** The short, stable code such as {@code exclusive-conflict}. */
    public String error() {
        return type.code();
    }

    /** What was wrong, in a sentence that names the things involved. */
    public String detail() {
        return detail;
    }

    /** How to fix it. */
    public String hint() {
        return hint;
    }

    /** Named fields for programs (e.g. {@code machine}, {@code holders}, {@code grantable}). */
    public Map<String, Object> extensions() {
        return extensions;
    }

    /** Kept for the callers that read the old name. */
    public Map<String, Object> details() {
        return extensions;
    }

    /** The answer's body, with the request's id. */
    public ProblemBody body(String requestId) {
        return new ProblemBody(type, status, detail, hint, requestId, extensions);
    }
}
