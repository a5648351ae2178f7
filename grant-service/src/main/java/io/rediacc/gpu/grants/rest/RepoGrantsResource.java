package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.ApiAuthConfig;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.api.GrantResponse;
import io.rediacc.gpu.contracts.api.RepoGrantsView;
import io.rediacc.gpu.contracts.api.RevokeResponse;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.service.EnforcementWaiter;
import io.rediacc.gpu.grants.service.GrantService;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Duration;

/** Grant, revoke and list the CDI devices of one repo. */
@Path("/api/v1/repos/{repo}/grants")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "grants", description = "Which repo may use which GPU device name")
public class RepoGrantsResource {

    private final GrantService grants;
    private final EnforcementWaiter enforcement;
    private final GrantsConfig config;
    private final ApiAuthConfig auth;
    private final java.time.Clock clock;

    public RepoGrantsResource(GrantService grants, EnforcementWaiter enforcement, GrantsConfig config, ApiAuthConfig auth,
                              java.time.Clock clock) {
        this.clock = clock;
        this.grants = grants;
        this.enforcement = enforcement;
        this.config = config;
        this.auth = auth;
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "grantDevice", summary = "Grant one CDI device name to a repo",
            description = "Validates the name against the machine's CDI devices, applies the exclusive rules under the "
                    + "machine's lock, records the change, then waits until the machine's gates enforce it.")
    @APIResponse(responseCode = "201", description = "granted and enforced by every live gate",
            content = @Content(schema = @Schema(implementation = GrantResponse.class)))
    @APIResponse(responseCode = "200", description = "already granted (idempotent), or the exclusive flag changed and is enforced",
            content = @Content(schema = @Schema(implementation = GrantResponse.class)))
    @APIResponse(responseCode = "202", description = "recorded, not yet enforced (gates lag, or none is live)",
            content = @Content(schema = @Schema(implementation = GrantResponse.class)))
    @APIResponse(responseCode = "400", description = "invalid CDI name, repo reference, wait or body", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "repo not on the machine", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "exclusive conflict (names the holder), no inventory from the machine, an ambiguous repo name, or the machine at its grant cap (too-many-grants)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "422", description = "the machine defines no such CDI device (lists grantable names and the closest match)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "503", description = "database unavailable or the machine's lock busy; retry", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "401", description = "no or unknown bearer token", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "403", description = "the caller is not an operator", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Response> grant(
            @Parameter(description = "repo name, or name@machine", examples = @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "repo", value = "train-a@gpu-host-1"))
            @PathParam("repo") String repo,
            @Parameter(description = "how long to wait for the gates: 0, 500ms, 5s (default 5s)", schema = @Schema(type = SchemaType.STRING))
            @QueryParam("wait") String wait,
            @Parameter(description = "who grants, only when authentication is off (api.auth.mode=none)") @HeaderParam(Actor.HEADER) String actor,
            @Context SecurityContext security,
            GrantRequest body) {
        if (body == null) {
            throw new ApiProblem(ProblemType.MISSING_BODY, "the request has no body",
                    "send JSON such as {\"device\": \"nvidia.com/gpu=0\", \"exclusive\": false}");
        }
        RepoRef ref = RepoRef.parse(repo);
        CdiName device = CdiName.parse(body.device());
        boolean exclusive = Boolean.TRUE.equals(body.exclusive());
        Duration waitFor = waitFor(wait);
        String who = Actor.of(security, actor, auth.mode());
        String reason = GrantTerms.reason(body.reason());
        java.time.Instant expiresAt = GrantTerms.expiry(body.expiresIn(), body.expiresAt(), clock.instant());
        return grants.grant(ref, body.machine(), device, exclusive, who, reason, expiresAt)
                .chain(change -> enforcement.await(change.machine(), change.version(), waitFor).map(enforced -> {
                    int status = !change.changed() ? 200 : !enforced.enforced() ? 202 : change.created() ? 201 : 200;
                    Response.ResponseBuilder response = Response.status(status).entity(Answers.grant(change, enforced));
                    if (change.created()) {
                        response.location(UriBuilder.fromPath("/api/v1/repos/{repo}/grants")
                                .build(change.repoName() + "@" + change.machine()));
                    }
                    return response.build();
                }));
    }

    @DELETE
    @RolesAllowed(Roles.OPERATOR)
    @Path("{device: .+}")
    @Operation(operationId = "revokeDevice", summary = "Revoke one CDI device name from a repo",
            description = "The device segment is URL-encoded (nvidia.com%2Fgpu=0). Waits until the machine's gates enforce the revocation.")
    @APIResponse(responseCode = "200", description = "revoked and enforced by every live gate",
            content = @Content(schema = @Schema(implementation = RevokeResponse.class)))
    @APIResponse(responseCode = "202", description = "revoked, not yet enforced",
            content = @Content(schema = @Schema(implementation = RevokeResponse.class)))
    @APIResponse(responseCode = "400", description = "invalid CDI name, repo reference or wait", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "the repo does not hold this grant, or is not on the machine", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "503", description = "database unavailable or the machine's lock busy; retry", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "401", description = "no or unknown bearer token", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "403", description = "the caller is not an operator", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<Response> revoke(@PathParam("repo") String repo,
                                @Parameter(description = "qualified CDI name, URL-encoded", examples = @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "device", value = "nvidia.com%2Fgpu=0"))
                                @PathParam("device") String device,
                                @QueryParam("machine") String machine,
                                @Parameter(description = "how long to wait for the gates: 0, 500ms, 5s (default 5s)", schema = @Schema(type = SchemaType.STRING))
                                @QueryParam("wait") String wait,
                                @Parameter(description = "why: recorded in the history and the audit event", examples = @org.eclipse.microprofile.openapi.annotations.media.ExampleObject(name = "reason", value = "ticket-123"))
                                @QueryParam("reason") String reason,
                                @HeaderParam(Actor.HEADER) String actor,
                                @Context SecurityContext security) {
        RepoRef ref = RepoRef.parse(repo);
        CdiName name = CdiName.parse(device);
        Duration waitFor = waitFor(wait);
        String who = Actor.of(security, actor, auth.mode());
        return grants.revoke(ref, machine, name, who, GrantTerms.reason(reason))
                .chain(change -> enforcement.await(change.machine(), change.version(), waitFor)
                        .map(enforced -> Response.status(enforced.enforced() ? 200 : 202)
                                .entity(Answers.revoke(change, enforced)).build()));
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(operationId = "listRepoGrants", summary = "List a repo's grants on its machine")
    @APIResponse(responseCode = "200", description = "the repo's grants",
            content = @Content(schema = @Schema(implementation = RepoGrantsView.class)))
    @APIResponse(responseCode = "404", description = "unknown repo or machine (a repo gone from its machine is listed with repoGone while it holds grants)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "the repo name exists on several machines", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<RepoGrantsView> list(@PathParam("repo") String repo, @QueryParam("machine") String machine) {
        return grants.repoGrants(RepoRef.parse(repo), machine).map(Answers::repoGrants);
    }

    private Duration waitFor(String wait) {
        return WaitParameter.parse(wait, config.ackWait(), config.maxAckWait());
    }
}
