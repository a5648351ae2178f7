package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.inventory.api.GpuPage;
import io.rediacc.gpu.inventory.service.GpuCursor;
import io.rediacc.gpu.inventory.service.FleetQueryService;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Every GPU of the fleet, with the machine it is in. */
@Path("/api/v1/gpus")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gpus")
@RolesAllowed(Roles.VIEWER)
public class GpusResource {

    private final FleetQueryService fleet;
    private final ListParameters params;

    public GpusResource(FleetQueryService fleet, ListParameters params) {
        this.fleet = fleet;
        this.params = params;
    }

    @GET
    @Operation(operationId = "listGpus", summary = "List GPUs of the fleet", description = "Sorted by machine, then GPU index, one page at a time. "
            + "Each page names the next one in 'next': pass it as 'after' to walk the whole fleet, every GPU exactly "
            + "once, however the fleet changes meanwhile. 'page' still selects a page by number; the total of the "
            + "unfiltered listing may be up to a second old.")
    @APIResponse(responseCode = "200", description = "One page of GPUs")
    @APIResponse(responseCode = "400", description = "A parameter is invalid (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<GpuPage> list(
            @Parameter(description = "Only GPUs of this vendor") @QueryParam("vendor") String vendor,
            @Parameter(description = "Only GPUs whose product name contains this text") @QueryParam("product") String product,
            @Parameter(description = "Page, from 0") @QueryParam("page") String page,
            @Parameter(description = "Items per page, 1 to 500 (default 50)") @QueryParam("size") String size,
            @Parameter(description = "The 'next' of the previous page (instead of page)") @QueryParam("after") String after) {
        GpuCursor cursor = params.cursor(after);
        if (cursor != null && page != null && !page.isBlank()) {
            throw new InvalidParameterException("page and after were both given",
                    "use after=<next of the previous page> to walk pages, or page=N alone");
        }
        return fleet.fleetGpus(params.filter("vendor", vendor), params.filter("product", product),
                cursor != null ? cursor.page() : params.page(page), params.size(size), cursor);
    }
}
