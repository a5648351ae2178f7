package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.contracts.api.MachineKeyRegistration;
import io.rediacc.gpu.contracts.api.RegisteredMachineKey;
import io.rediacc.gpu.api.params.QueryFlag;
import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.api.security.ApiAuthConfig;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.grants.service.MachineKeys;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
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

/** A machine's public key: what makes its records its own (docs/SECURITY.md, "Signed records"). */
@Path("/api/v1/machines/{machine}/key")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "machines")
public class MachineKeyResource {

    private final MachineKeys keys;
    private final ApiAuthConfig auth;

    public MachineKeyResource(MachineKeys keys, ApiAuthConfig auth) {
        this.keys = keys;
        this.auth = auth;
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(operationId = "getMachineKey", summary = "A machine's registered key")
    @APIResponse(responseCode = "200", description = "the key", content = @Content(schema = @Schema(implementation = RegisteredMachineKey.class)))
    @APIResponse(responseCode = "404", description = "no key registered", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<RegisteredMachineKey> show(@PathParam("machine") String machine) {
        return keys.show(machine);
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "registerMachineKey", summary = "Register a machine's public key",
            description = "Trusted on the operator's word: from now on only records signed by this key speak for the "
                    + "machine. The same key again changes nothing (changed=false); another key for a machine that has "
                    + "one is refused (409 machine-key-registered) unless rekey=true, and every change is kept in the "
                    + "key's history with its actor and reason.")
    @APIResponse(responseCode = "200", description = "registered (changed says whether anything was written)",
            content = @Content(schema = @Schema(implementation = RegisteredMachineKey.class)))
    @APIResponse(responseCode = "400", description = "invalid machine name, key or rekey", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "the machine has another key and rekey is not true", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<RegisteredMachineKey> register(@PathParam("machine") String machine, @QueryParam("rekey") String rekey,
                                                MachineKeyRegistration body, @HeaderParam(Actor.HEADER) String actor,
                                                @Context SecurityContext security) {
        String who = Actor.of(security, actor, auth.mode());
        boolean again = QueryFlag.parse("rekey", rekey);
        if (body == null) {
            throw new ApiProblem(ProblemType.MISSING_BODY, "the request has no body",
                    "send {\"publicKey\": \"<PEM>\", \"reason\": \"...\"}");
        }
        return keys.register(machine, body.publicKey(), again, who, GrantTerms.reason(body.reason()));
    }
}
