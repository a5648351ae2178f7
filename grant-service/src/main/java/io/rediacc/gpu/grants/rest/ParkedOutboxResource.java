package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.grants.repository.OutboxSignal;
import io.rediacc.gpu.grants.repository.ParkedOutbox;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/**
 * The operator's way out of a parked record (docs/RELIABILITY.md): look at what Kafka refused, then
 * drop it (the machine's later records flow again; its next change publishes a fresh snapshot) or
 * retry it (after the topic's limit was raised). Operators only: a dropped audit event is gone.
 */
@Path("/api/v1/outbox/parked")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "operations")
@RolesAllowed(Roles.OPERATOR)
public class ParkedOutboxResource {

    /** Most rows one listing returns: parked rows are rare, and each holds back a whole machine. */
    static final int LIST_LIMIT = 100;

    private final ParkedOutbox parked;
    private final OutboxSignal signal;

    public ParkedOutboxResource(ParkedOutbox parked, OutboxSignal signal) {
        this.parked = parked;
        this.signal = signal;
    }

    @GET
    @Operation(operationId = "listParkedRecords", summary = "Outbox records Kafka refused for good", description = "oldest first, at most 100, without payloads")
    @APIResponse(responseCode = "200", description = "the parked records")
    public Uni<List<ParkedOutbox.Parked>> list() {
        return parked.list(LIST_LIMIT);
    }

    @GET
    @Path("{id}")
    @Operation(operationId = "getParkedRecord", summary = "A parked record's JSON value")
    @APIResponse(responseCode = "200", description = "the record's value as it was to be published")
    @APIResponse(responseCode = "400", description = "the id is not a positive number (invalid-id)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "no parked record has that id", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Response> payload(@PathParam("id") String id) {
        long key = id(id);
        return parked.payload(key).map(json -> {
            if (json == null) {
                throw notParked(key);
            }
            return Response.ok(json, MediaType.APPLICATION_JSON).build();
        });
    }

    @DELETE
    @Path("{id}")
    @Operation(operationId = "dropParkedRecord", summary = "Drop a parked record", description = "its machine's later records are published again")
    @APIResponse(responseCode = "204", description = "dropped")
    @APIResponse(responseCode = "400", description = "the id is not a positive number (invalid-id)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "no parked record has that id", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Response> drop(@PathParam("id") String id) {
        long key = id(id);
        return parked.drop(key).map(found -> answer(found, key));
    }

    @POST
    @Path("{id}/retry")
    @Operation(operationId = "retryParkedRecord", summary = "Send a parked record again", description = "back into the outbox in its place, e.g. after the topic's max.message.bytes was raised")
    @APIResponse(responseCode = "204", description = "queued again")
    @APIResponse(responseCode = "400", description = "the id is not a positive number (invalid-id)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "no parked record has that id", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Response> retry(@PathParam("id") String id) {
        long key = id(id);
        return parked.retry(key).map(found -> answer(found, key));
    }

    private Response answer(boolean found, long id) {
        if (!found) {
            throw notParked(id);
        }
        signal.committed(); // the relay wakes now instead of at its next poll
        return Response.noContent().build();
    }

    private static long id(String id) {
        try {
            long value = Long.parseLong(id);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException ignored) {
            // answered below
        }
        throw new ApiProblem(ProblemType.INVALID_ID, "parked record id \"" + abbreviate(id) + "\" is not a positive number",
                "use an id from GET /api/v1/outbox/parked");
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "…";
    }

    private static ApiProblem notParked(long id) {
        return new ApiProblem(ProblemType.NOT_PARKED, "no parked outbox record has id " + id,
                "GET /api/v1/outbox/parked lists the parked records");
    }
}
