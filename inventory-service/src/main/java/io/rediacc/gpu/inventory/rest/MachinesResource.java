package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.api.MachineDetail;
import io.rediacc.gpu.inventory.api.MachineSummary;
import io.rediacc.gpu.inventory.api.Page;
import io.rediacc.gpu.inventory.repository.FleetFilter;
import io.rediacc.gpu.inventory.service.FleetQueryService;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/** The machines of the fleet: listing with filters, one machine, its GPUs, its raw inventory. */
@Path("/api/v1/machines")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "machines")
@RolesAllowed(Roles.VIEWER)
public class MachinesResource {

    private final FleetQueryService fleet;
    private final ListParameters params;

    public MachinesResource(FleetQueryService fleet, ListParameters params) {
        this.fleet = fleet;
        this.params = params;
    }

    @GET
    @Operation(operationId = "listMachines", summary = "List machines", description = "Machines with their GPU count, platform, inventory age and "
            + "whether the inventory is stale (older than 3 heartbeats), sorted by name, one page at a time.")
    @APIResponse(responseCode = "200", description = "One page of machines")
    @APIResponse(responseCode = "400", description = "A parameter is invalid (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Page<MachineSummary>> list(
            @Parameter(description = "Page, from 0") @QueryParam("page") String page,
            @Parameter(description = "Items per page, 1 to 500 (default 50)") @QueryParam("size") String size,
            @Parameter(description = "Only machines with a GPU of this vendor (nvidia, amd, intel)") @QueryParam("vendor") String vendor,
            @Parameter(description = "Only machines with a GPU whose product name contains this text") @QueryParam("product") String product,
            @Parameter(description = "Only machines with a CDI device no live gate reports as exclusively held")
            @QueryParam("freeDevices") String freeDevices) {
        FleetFilter filter = new FleetFilter(params.filter("vendor", vendor), params.filter("product", product),
                params.flag("freeDevices", freeDevices));
        return fleet.machines(filter, params.page(page), params.size(size));
    }

    @GET
    @Path("{machine}")
    @Operation(operationId = "getMachine", summary = "One machine", description = "GPUs, grantable CDI devices with the repos that hold each "
            + "(from the live gates' reports), repos, gates and toolkit state.")
    @APIResponse(responseCode = "200", description = "The machine")
    @APIResponse(responseCode = "400", description = "The machine name is invalid (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "No inventory of this machine has been received (unknown-machine)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<MachineDetail> get(@PathParam("machine") String machine) {
        return fleet.machine(params.machine(machine));
    }

    @GET
    @Path("{machine}/gpus")
    @Operation(operationId = "listMachineGpus", summary = "A machine's GPUs")
    @APIResponse(responseCode = "200", description = "The machine's GPUs, as its latest inventory lists them")
    @APIResponse(responseCode = "400", description = "The machine name is invalid (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "No inventory of this machine has been received (unknown-machine)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<List<MachineInventory.Gpu>> gpus(@PathParam("machine") String machine) {
        return fleet.gpusOf(params.machine(machine));
    }

    @GET
    @Path("{machine}/inventory")
    @Operation(operationId = "getMachineInventory", summary = "The raw inventory", description = "The latest inventory record exactly as the machine published it.")
    @APIResponse(responseCode = "200", description = "The inventory record, byte for byte as published (schema: contracts' gpu.inventory.v1)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = MachineInventory.class)))
    @APIResponse(responseCode = "400", description = "The machine name is invalid (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "No inventory of this machine has been received (unknown-machine)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Response> inventory(@PathParam("machine") String machine) {
        return fleet.rawInventory(params.machine(machine))
                .map(json -> Response.ok(json, MediaType.APPLICATION_JSON_TYPE).build());
    }
}
