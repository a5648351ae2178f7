package io.rediacc.gpu.grants.service;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the service will not carry out, as something the caller can act on: a short code, what
 * was wrong, how to fix it, and structured details (the holder of a name, the grantable names…).
 * The REST layer turns {@link Kind} into the HTTP status.
 */
public final class Problem extends RuntimeException {

    /** What kind of refusal this is; decides the HTTP status. */
    public enum Kind {
        /** The request itself is malformed (400). */
        BAD_INPUT,
        /** The repo, machine or grant named does not exist (404). */
        NOT_FOUND,
        /** The request clashes with the current state: a holder, no inventory, an ambiguous name (409). */
        CONFLICT,
        /** The request is well-formed but names something the machine does not define (422). */
        UNPROCESSABLE,
        /** A dependency is down or busy; retrying later may succeed (503). */
        UNAVAILABLE
    }

    private final Kind kind;
    private final String error;
    private final String detail;
    private final String hint;
    private final Map<String, Object> details;

    public Problem(Kind kind, String error, String detail, String hint) {
        this(kind, error, detail, hint, Map.of());
    }

    public Problem(Kind kind, String error, String detail, String hint, Map<String, Object> details) {
        super(detail, null, false, false);
        this.kind = kind;
        this.error = error;
        this.detail = detail;
        this.hint = hint;
        this.details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    public Kind kind() {
        return kind;
    }

    /** A short, stable code such as {@code exclusive-conflict}. */
    public String error() {
        return error;
    }

    /** What was wrong, in a sentence that names the things involved. */
    public String detail() {
        return detail;
    }

    /** How to fix it. */
    public String hint() {
        return hint;
    }

    /** Structured details for programs (e.g. {@code holders}, {@code grantable}, {@code closestMatch}). */
    public Map<String, Object> details() {
        return details;
    }
}
