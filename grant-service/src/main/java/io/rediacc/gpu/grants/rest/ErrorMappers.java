package io.rediacc.gpu.grants.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.grants.service.Problem;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.net.ConnectException;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Turns every failure into the JSON error body with the right status: bad input is a 400 that
 * says what to fix, a database that cannot be reached (or a machine lock that stays busy) is a
 * 503 to retry, and anything unforeseen is a 500 whose body carries an id to find the stack trace
 * in the log — never the stack trace itself.
 */
public class ErrorMappers {

    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    @ServerExceptionMapper
    public Response problem(Problem problem) {
        return toResponse(problem);
    }

    @ServerExceptionMapper
    public Response invalidArgument(IllegalArgumentException e) {
        return toResponse(e);
    }

    @ServerExceptionMapper
    public Response mismatchedInput(MismatchedInputException e) {
        return toResponse(e);
    }

    @ServerExceptionMapper
    public Response unreadableJson(JsonProcessingException e) {
        return toResponse(e);
    }

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        return toResponse(e);
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        return toResponse(e);
    }

    static Response toResponse(Throwable thrown) {
        for (Throwable e = thrown; e != null; e = e.getCause() == e ? null : e.getCause()) {
            Response known = known(e);
            if (known != null) {
                return known;
            }
        }
        if (thrown instanceof WebApplicationException web) {
            return fromStatus(web);
        }
        String id = UUID.randomUUID().toString();
        LOG.errorf(thrown, "unexpected error %s", id);
        return respond(500, new ApiError("internal-error", "the service failed unexpectedly (error id " + id + ")",
                "retry; if it persists, report the error id to the operators, whose log has the details"));
    }

    private static Response known(Throwable e) {
        if (e instanceof Problem p) {
            return respond(status(p.kind()), new ApiError(p.error(), p.detail(), p.hint(), p.details()));
        }
        if (e instanceof InvalidCdiNameException cdi) {
            return respond(400, new ApiError("invalid-device-name", cdi.getMessage(),
                    "name one CDI device as vendor/class=device, e.g. nvidia.com/gpu=0 or rediacc.io/dri=renderD128",
                    Map.of("part", cdi.part().name().toLowerCase())));
        }
        if (e instanceof InvalidIdentifierException id) {
            return respond(400, new ApiError("invalid-identifier", id.getMessage(),
                    "repos are named name or name@machine, e.g. train-a@gpu-host-1"));
        }
        if (e instanceof JsonProcessingException json) {
            return respond(400, new ApiError("malformed-body", describeJson(json),
                    "send JSON such as {\"machine\": \"gpu-host-1\", \"device\": \"nvidia.com/gpu=0\", \"exclusive\": false}"));
        }
        if (e instanceof jakarta.persistence.LockTimeoutException
                || e instanceof org.hibernate.exception.LockTimeoutException) {
            return machineBusy();
        }
        if (e instanceof org.hibernate.exception.JDBCConnectionException) {
            return unavailable("the database cannot be reached: " + e.getMessage());
        }
        // Hibernate Reactive reports the server's errors as SQLException, the bare client as PgException
        String sqlState = e instanceof PgException pg ? pg.getSqlState()
                : e instanceof SQLException sql ? sql.getSQLState() : null;
        if (sqlState != null) {
            Response byState = database(sqlState, e.getMessage());
            if (byState != null) {
                return byState;
            }
        }
        // SocketException: a server that went away mid-transaction resets the connection (a restart)
        if (e instanceof ConnectException || e instanceof java.net.SocketException || e instanceof ClosedConnectionException
                || e instanceof io.vertx.core.impl.NoStackTraceThrowable && String.valueOf(e.getMessage()).contains("Timeout")) {
            return unavailable("the database cannot be reached: " + e.getMessage());
        }
        // a write to a server that has just gone (a restart) fails on the socket before the pool sees it closed
        if (e instanceof java.io.IOException && (String.valueOf(e.getMessage()).contains("Broken pipe")
                || String.valueOf(e.getMessage()).contains("Connection reset"))) {
            return unavailable("the database connection broke: " + e.getMessage());
        }
        if (String.valueOf(e.getMessage()).contains("Connection refused")
                || String.valueOf(e.getMessage()).contains("Pool closed")) {
            return unavailable("the database cannot be reached: " + e.getMessage());
        }
        return null;
    }

    private static Response database(String state, String message) {
        if ("55P03".equals(state)) { // lock_not_available: lock_timeout passed while another change held the machine
            return machineBusy();
        }
        if (state.startsWith("08") || state.startsWith("53") || state.startsWith("57")) {
            return unavailable("the database refused the work (SQLSTATE " + state + "): " + message);
        }
        return null;
    }

    private static Response machineBusy() {
        return respond(503, new ApiError("machine-busy",
                "another change of this machine held its lock longer than the lock timeout",
                "retry in a moment; nothing was changed by this request"), 1);
    }

    private static Response unavailable(String detail) {
        return respond(503, new ApiError("database-unavailable", detail,
                "retry when the database is back; nothing was changed by this request"), 5);
    }

    private static Response fromStatus(WebApplicationException web) {
        int status = web.getResponse() == null ? 500 : web.getResponse().getStatus();
        String error = switch (status) {
            case 400 -> "bad-request";
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 406 -> "not-acceptable";
            case 415 -> "unsupported-media-type";
            default -> status >= 500 ? "internal-error" : "request-refused";
        };
        String hint = switch (status) {
            case 404 -> "the API is under /api/v1 (see /q/openapi)";
            case 415 -> "send the body as Content-Type: application/json";
            default -> "see /q/openapi for the API";
        };
        return respond(status, new ApiError(error, web.getMessage() == null ? "HTTP " + status : web.getMessage(), hint));
    }

    static String describeJson(JsonProcessingException e) {
        String where = "";
        if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
            where = mapping.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining("."));
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

    private static Response respond(int status, ApiError error) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(error).build();
    }

    private static Response respond(int status, ApiError error, int retryAfterSeconds) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).header("Retry-After", retryAfterSeconds)
                .entity(error).build();
    }

    static int status(Problem.Kind kind) {
        return switch (kind) {
            case BAD_INPUT -> 400;
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case UNPROCESSABLE -> 422;
            case UNAVAILABLE -> 503;
        };
    }
}
