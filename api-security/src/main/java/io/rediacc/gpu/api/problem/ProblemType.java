package io.rediacc.gpu.api.problem;

import java.net.URI;
import java.util.Locale;

/**
 * Every error code the REST APIs answer with (grant-service, inventory-service and api-security's
 * own 401/403/413/414/429/431), with its HTTP status and title: the one list that docs/ERRORS.md
 * documents (a test checks that it lists each). The code is the last segment of the answer's
 * {@code type}, {@value #BASE}&lt;code&gt;, and is repeated as {@code error} for scripts.
 */
public enum ProblemType {

    // 400: the request itself is wrong
    INVALID_PARAMETER(400, "Invalid parameter"),
    INVALID_DEVICE_NAME(400, "Invalid CDI device name"),
    INVALID_IDENTIFIER(400, "Invalid repo or machine name"),
    MALFORMED_BODY(400, "Malformed request body"),
    MISSING_BODY(400, "Missing request body"),
    MACHINE_MISMATCH(400, "Machine named twice, differently"),
    INVALID_EXPIRY(400, "Invalid expiry"),
    INVALID_REASON(400, "Invalid reason"),
    INVALID_WAIT(400, "Invalid wait"),
    INVALID_ACTOR(400, "Invalid actor"),
    INVALID_ID(400, "Invalid id"),
    INVALID_KEY(400, "Invalid public key"),
    BAD_REQUEST(400, "Bad request"),
    // 401/403: who is calling
    UNAUTHORIZED(401, "Unauthorized"),
    FORBIDDEN(403, "Forbidden"),
    // 404: what the request names does not exist
    UNKNOWN_MACHINE(404, "Unknown machine"),
    UNKNOWN_REPO(404, "Unknown repo"),
    NOT_GRANTED(404, "Not granted"),
    NOT_PARKED(404, "No such parked record"),
    NO_MACHINE_KEY(404, "No key registered for the machine"),
    NOT_FOUND(404, "No such endpoint"),
    METHOD_NOT_ALLOWED(405, "Method not allowed"),
    NOT_ACCEPTABLE(406, "Not acceptable"),
    // 409: the request clashes with the current state
    NO_INVENTORY(409, "No inventory"),
    AMBIGUOUS_REPO(409, "Ambiguous repo name"),
    EXCLUSIVE_CONFLICT(409, "Exclusive reservation in the way"),
    MACHINE_HAS_GRANTS(409, "Machine still holds grants"),
    TOO_MANY_GRANTS(409, "Too many grants on the machine"),
    RECORD_TOO_LARGE(409, "Record too large"),
    MACHINE_KEY_REGISTERED(409, "Another key is registered for the machine"),
    KAFKA_USERS_NOT_MANAGED(409, "Kafka users are not managed by this service"),
    BODY_TOO_LARGE(413, "Request body too large"),
    URI_TOO_LONG(414, "Request URL too long"),
    UNSUPPORTED_MEDIA_TYPE(415, "Unsupported media type"),
    UNKNOWN_DEVICE(422, "Unknown device"),
    RATE_LIMITED(429, "Too many writes"),
    HEADERS_TOO_LARGE(431, "Request headers too large"),
    // any other 4xx the HTTP layer answers (its own status)
    REQUEST_REFUSED(400, "Request refused"),
    // 5xx: the service's side
    INTERNAL_ERROR(500, "Internal error"),
    DATABASE_UNAVAILABLE(503, "Database unavailable"),
    MACHINE_BUSY(503, "Machine busy"),
    KAFKA_UNAVAILABLE(503, "Kafka unavailable");

    /** Prefix of every {@code type}. */
    public static final String BASE = "https://rediacc.io/problems/";

    private final int status;
    private final String title;

    ProblemType(int status, String title) {
        this.status = status;
        this.title = title;
    }

    /** The status this code is answered with ({@link #REQUEST_REFUSED} takes the HTTP layer's own). */
    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    /** The short code, e.g. {@code unknown-machine}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The RFC 9457 {@code type}: {@value #BASE} followed by the code. */
    public URI uri() {
        return URI.create(BASE + code());
    }
}
