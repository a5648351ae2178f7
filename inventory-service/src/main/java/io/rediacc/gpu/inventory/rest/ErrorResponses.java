package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.inventory.api.ErrorBody;
import io.rediacc.gpu.inventory.service.UnknownMachineException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.net.ConnectException;
import java.util.UUID;

/** Every failure as {@code {"error","detail","hint"}}: what went wrong and what to do, never a stack trace. */
public class ErrorResponses {

    private static final Logger LOG = Logger.getLogger(ErrorResponses.class);

    @ServerExceptionMapper
    public Response unknownMachine(UnknownMachineException e) {
        return answer(Response.Status.NOT_FOUND, "unknown machine", e.getMessage(),
                "check the name with 'rdc machine list' (GET /api/v1/machines); a machine appears once its node-agent has published an inventory");
    }

    @ServerExceptionMapper
    public Response keyHeld(io.rediacc.gpu.inventory.signing.MachineKeys.KeyHeld e) {
        return answer(Response.Status.CONFLICT, "machine-key-registered", e.getMessage(),
                "if the machine was reinstalled or its key replaced on purpose, re-key it: rdc machine setup <machine> --rekey"
                        + " (PUT ...?rekey=true); else the key offered is not the machine's");
    }

    @ServerExceptionMapper
    public Response invalidParameter(InvalidParameterException e) {
        return answer(Response.Status.BAD_REQUEST, "invalid parameter", e.getMessage(), e.hint());
    }

    @ServerExceptionMapper
    public Response webApplication(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status == 404) {
            return answer(Response.Status.NOT_FOUND, "no such endpoint", "nothing is served at this path",
                    "the API is under /api/v1 (machines, machines/{machine}, machines/{machine}/gpus, "
                            + "machines/{machine}/inventory, gpus); see /q/openapi");
        }
        Response.StatusType type = Response.Status.fromStatusCode(status);
        String reason = type != null ? type.getReasonPhrase() : "HTTP " + status;
        return answer(status, reason.toLowerCase(java.util.Locale.ROOT), e.getMessage(), "see /q/openapi for the API");
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        // A failure nobody anticipated is still answered in the error format; the id ties it to the log.
        String id = UUID.randomUUID().toString();
        if (databaseDown(e)) {
            LOG.warnf("request %s failed, database unavailable: %s", id, e.getMessage());
            return answer(Response.Status.SERVICE_UNAVAILABLE, "database unavailable",
                    "the inventory database cannot be reached (" + e.getClass().getSimpleName() + ")",
                    "retry shortly; if it persists check PostgreSQL and /q/health/ready");
        }
        LOG.errorf(e, "request %s failed", id);
        return answer(Response.Status.SERVICE_UNAVAILABLE, "request failed",
                "the request could not be completed (" + e.getClass().getSimpleName() + ", log id " + id + ")",
                "retry; if it persists, report the log id");
    }

    private static boolean databaseDown(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String name = t.getClass().getName();
            if (t instanceof ConnectException || name.startsWith("io.vertx.pgclient") || name.startsWith("io.vertx.sqlclient")
                    || name.startsWith("org.hibernate")) {
                return true;
            }
        }
        return false;
    }

    private static Response answer(Response.Status status, String error, String detail, String hint) {
        return answer(status.getStatusCode(), error, detail, hint);
    }

    private static Response answer(int status, String error, String detail, String hint) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ErrorBody(error, detail, hint)).build();
    }
}
