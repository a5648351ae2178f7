package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.params.QueryFlag;
import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.ApiAuthConfig;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.api.RemovalView;
import io.rediacc.gpu.grants.service.GrantService;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** A machine leaving the fleet. */
@Path("/api/v1/machines/{machine}")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "grants")
public class MachineRemovalResource {

    private final GrantService grants;
    private final ApiAuthConfig auth;

    public MachineRemovalResource(GrantService grants, ApiAuthConfig auth) {
        this.grants = grants;
        this.auth = auth;
    }

    @DELETE
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "removeMachine", summary = "Remove a machine from the fleet",
            description = "Refused while the machine holds grants unless revokeGrants=true; then revokes them "
                    + "(each audited), tombstones its inventory and gate-status records so every service forgets it, "
                    + "forgets what its inventory told this service, and revokes its key: nothing it signed before comes back,"
                    + " and grants are refused until it registers again. Its grant version is kept.")
    @APIResponse(responseCode = "200", description = "removed", content = @Content(schema = @Schema(implementation = RemovalView.class)))
    @APIResponse(responseCode = "400", description = "invalid machine name, reason or revokeGrants (true or false)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "unknown machine", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "the machine holds grants and revokeGrants is not true (lists them)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "401", description = "no or unknown bearer token", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "403", description = "the caller is not an operator", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<RemovalView> remove(@PathParam("machine") String machine,
                                   @QueryParam("revokeGrants") String revokeGrants,
                                   @QueryParam("reason") String reason,
                                   @HeaderParam(Actor.HEADER) String actor,
                                   @Context SecurityContext security) {
        String who = Actor.of(security, actor, auth.mode());
        return grants.removeMachine(machine, QueryFlag.parse("revokeGrants", revokeGrants), who, GrantTerms.reason(reason))
                .map(r -> new RemovalView(r.machine(), r.revoked().size(), r.revoked(), r.version(), r.gates()));
    }
}
