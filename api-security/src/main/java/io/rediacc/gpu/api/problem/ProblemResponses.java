package io.rediacc.gpu.api.problem;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

/** Builds the HTTP answer of a problem: status, media type, body, and the headers some codes need. */
public final class ProblemResponses {

    /** Seconds to wait before retrying a busy machine lock. */
    static final int MACHINE_BUSY_RETRY_SECONDS = 1;
    /** Seconds to wait before retrying while the database is down. */
    static final int DATABASE_RETRY_SECONDS = 5;

    private ProblemResponses() {
    }

    public static Response of(ApiProblem problem, String requestId) {
        Response.ResponseBuilder answer = Response.status(problem.status()).type(ProblemBody.MEDIA_TYPE)
                .header(RequestIds.HEADER, requestId)
                .entity(problem.body(requestId));
        switch (problem.type()) {
            case UNAUTHORIZED -> answer.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
            case MACHINE_BUSY -> answer.header("Retry-After", MACHINE_BUSY_RETRY_SECONDS);
            case DATABASE_UNAVAILABLE, KAFKA_UNAVAILABLE -> answer.header("Retry-After", DATABASE_RETRY_SECONDS);
            case RATE_LIMITED -> answer.header("Retry-After", problem.extensions().getOrDefault("retryAfterSeconds", 1));
            default -> { }
        }
        return answer.build();
    }
}
