package io.rediacc.gpu.api.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.quarkus.arc.Arc;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Every failure of every REST API as one {@code application/problem+json} answer ({@link ProblemBody}):
 * a refusal ({@link ApiProblem}) with its status, 401/403 with {@code WWW-Authenticate: Bearer} on 401,
 * an unreadable body as 400, the HTTP layer's own refusals (404, 405, 415…) with their status, the
 * failures a service's {@link FailureClassifier} knows (503 for a database that is down), and anything
 * unforeseen as 500 {@code internal-error} whose request id finds the stack trace in the log — never
 * 503 (a client would retry a bug), never the stack trace itself. Needs lazy authentication
 * ({@code quarkus.http.auth.proactive=false}) so that 401/403 reach this layer.
 */
public class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

    private static final Pattern DUPLICATE = Pattern.compile("Duplicate field '([^']{0,64})'");

    static final String TOKEN_HINT = "send Authorization: Bearer <token> (rdc reads it from RDC_TOKEN or token: in its config file)";

    @ServerExceptionMapper
    public Response problem(ApiProblem problem, HttpHeaders headers) {
        return respond(problem, headers);
    }

    @ServerExceptionMapper
    public Response noCredentials(UnauthorizedException e, HttpHeaders headers) {
        return respond(unauthorized("no bearer token: this call needs an authenticated caller"), headers);
    }

    @ServerExceptionMapper
    public Response badCredentials(AuthenticationFailedException e, HttpHeaders headers) {
        String refused = TokenRefused.reasonOf(e);
        if (refused != null) {
            return respond(unauthorized("the bearer token was refused: " + refused), headers);
        }
        return respond(unauthorized("the bearer token was refused (unknown, expired, for another audience or issuer, "
                + "or its signature does not verify)"), headers);
    }

    @ServerExceptionMapper
    public Response wrongRole(ForbiddenException e, HttpHeaders headers) {
        return respond(new ApiProblem(ProblemType.FORBIDDEN,
                "the caller lacks the role this call needs: reading needs viewer, granting and revoking need operator",
                "ask an administrator for a token with the operator role, or use this one only to read"), headers);
    }

    @ServerExceptionMapper
    public Response mismatchedInput(MismatchedInputException e, HttpHeaders headers) {
        return respond(malformedBody(e), headers);
    }

    @ServerExceptionMapper
    public Response unreadableJson(JsonProcessingException e, HttpHeaders headers) {
        return respond(malformedBody(e), headers);
    }

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e, HttpHeaders headers) {
        return unexpected(e, headers);
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable thrown, HttpHeaders headers) {
        return respond(problemOf(thrown, requestId(headers), Arc.container().instance(FailureClassifiers.class).get().all()), headers);
    }

    /** The problem a failure stands for: the first cause that is one, or that a classifier knows; else 500. */
    public static ApiProblem problemOf(Throwable thrown, String requestId, Iterable<? extends FailureClassifier> classifiers) {
        for (Throwable e = thrown; e != null; e = e.getCause() == e ? null : e.getCause()) {
            Optional<ApiProblem> known = known(e, classifiers);
            if (known.isPresent()) {
                return known.get();
            }
        }
        if (thrown instanceof WebApplicationException web && web.getResponse() != null && web.getResponse().getStatus() < 500) {
            return fromStatus(web);
        }
        LOG.errorf(thrown, "unexpected error, request %s", requestId);
        return new ApiProblem(ProblemType.INTERNAL_ERROR, "the service failed unexpectedly (request id " + requestId + ")",
                "report the request id to the operators, whose log has the details; retrying will likely fail the same way");
    }

    private static Optional<ApiProblem> known(Throwable e, Iterable<? extends FailureClassifier> classifiers) {
        if (e instanceof ApiProblem problem) {
            return Optional.of(problem);
        }
        if (e instanceof JsonProcessingException json) {
            return Optional.of(malformedBody(json));
        }
        if (e instanceof UnauthorizedException) {
            return Optional.of(unauthorized("no bearer token: this call needs an authenticated caller"));
        }
        for (FailureClassifier classifier : classifiers) {
            Optional<ApiProblem> known = classifier.classify(e);
            if (known.isPresent()) {
                return known;
            }
        }
        return Optional.empty();
    }

    static ApiProblem unauthorized(String detail) {
        return new ApiProblem(ProblemType.UNAUTHORIZED, detail, TOKEN_HINT);
    }

    private static ApiProblem fromStatus(WebApplicationException web) {
        int status = web.getResponse().getStatus();
        ProblemType type = switch (status) {
            case 400 -> ProblemType.BAD_REQUEST;
            case 404 -> ProblemType.NOT_FOUND;
            case 405 -> ProblemType.METHOD_NOT_ALLOWED;
            case 406 -> ProblemType.NOT_ACCEPTABLE;
            case 415 -> ProblemType.UNSUPPORTED_MEDIA_TYPE;
            default -> ProblemType.REQUEST_REFUSED;
        };
        String detail = switch (status) {
            case 404 -> "nothing is served at this path";
            default -> web.getMessage() == null ? "HTTP " + status : web.getMessage();
        };
        String hint = switch (status) {
            case 404 -> "the API is under /api/v1 (see /q/openapi)";
            case 415 -> "send the body as Content-Type: application/json";
            default -> "see /q/openapi for the API";
        };
        return new ApiProblem(type, status, detail, hint, Map.of());
    }

    static ApiProblem malformedBody(JsonProcessingException e) {
        return new ApiProblem(ProblemType.MALFORMED_BODY, describeJson(e),
                "send the JSON object the operation documents (/q/openapi), e.g. {\"device\": \"nvidia.com/gpu=0\", \"exclusive\": false}");
    }

    /** What is wrong with a JSON body, naming the field. */
    static String describeJson(JsonProcessingException e) {
        String where = "";
        if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            where = mapping.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining("."));
        }
        // the strict reader's refusals (contracts StrictJson), said without Jackson's vocabulary
        String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        Matcher duplicate = DUPLICATE.matcher(original);
        if (duplicate.lookingAt()) {
            return "the field \"" + duplicate.group(1) + "\" appears twice in one object; send each field once"
                    + " (which one was meant cannot be guessed)";
        }
        if (original.startsWith("Trailing token")) {
            return "the body has content after its JSON value (a second object or stray characters); send exactly one JSON value";
        }
        if (e instanceof UnrecognizedPropertyException unknown) {
            return "unknown field \"" + unknown.getPropertyName() + "\"; known fields: "
                    + unknown.getKnownPropertyIds().stream().map(String::valueOf).sorted().collect(Collectors.joining(", "));
        }
        if (e instanceof InvalidFormatException format) {
            return "field " + where + " has the value " + format.getValue() + ", which is not a "
                    + simpleType(format.getTargetType());
        }
        if (e instanceof MismatchedInputException mismatched && !where.isEmpty()) {
            return "field " + where + " must be a " + simpleType(mismatched.getTargetType());
        }
        return "the body is not valid JSON: " + e.getOriginalMessage();
    }

    private static String simpleType(Class<?> type) {
        if (type == null) {
            return "value of the right type";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "boolean (true or false)";
        }
        if (type == String.class) {
            return "string";
        }
        return type.getSimpleName();
    }

    private static String requestId(HttpHeaders headers) {
        String id = headers == null ? null : headers.getHeaderString(RequestIds.HEADER);
        return id != null ? id : RequestIds.current();
    }

    private static Response respond(ApiProblem problem, HttpHeaders headers) {
        return ProblemResponses.of(problem, requestId(headers));
    }
}
