package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.api.MachineGrantsView;
import io.rediacc.gpu.grants.service.GateRegistry;
import io.rediacc.gpu.grants.service.GrantService;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;

/** A machine's grant set and what its gates enforce. */
@Path("/api/v1/machines/{machine}/grants")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "grants")
public class MachineGrantsResource {

    private final GrantService grants;
    private final GateRegistry gates;
    private final java.time.Clock clock;

    public MachineGrantsResource(GrantService grants, GateRegistry gates, java.time.Clock clock) {
        this.clock = clock;
        this.grants = grants;
        this.gates = gates;
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(operationId = "getMachineGrants", summary = "A machine's grants, version and gates",
            description = "grants and version as the database holds them; gates as each gate last reported on gpu.gate-status.v1")
    @APIResponse(responseCode = "200", description = "the machine's grants",
            content = @Content(schema = @Schema(implementation = MachineGrantsView.class)))
    @APIResponse(responseCode = "400", description = "invalid machine name", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "unknown machine", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<MachineGrantsView> machineGrants(@PathParam("machine") String machine) {
        return grants.machineGrants(machine).map(held -> {
            Instant now = clock.instant();
            return new MachineGrantsView(held.machine(), held.version(), held.grants(), gates.gates(machine).stream()
                    .map(g -> new MachineGrantsView.GateView(g.gateId(), g.appliedVersion(), g.status().state(),
                            gates.live(g, now), g.status().syncedAt(), g.status().grants(), g.status().grantCount(),
                            g.status().grantsDigest(), g.status().grantsListed()))
                    .toList(), held.orphaned());
        });
    }
}
