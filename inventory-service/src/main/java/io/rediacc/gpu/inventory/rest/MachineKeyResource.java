package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.contracts.api.MachineKeyRegistration;
import io.rediacc.gpu.contracts.api.RegisteredMachineKey;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.inventory.signing.MachineKeys;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import io.rediacc.gpu.api.problem.ProblemBody;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.security.PublicKey;

/**
 * A machine's public key in this service (the same registration as grant-service's; {@code rdc machine setup}
 * registers with both): only records signed by it speak for the machine here.
 */
@Path("/api/v1/machines/{machine}/key")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "machines")
public class MachineKeyResource {

    private final MachineKeys keys;
    private final ListParameters params;

    public MachineKeyResource(MachineKeys keys, ListParameters params) {
        this.keys = keys;
        this.params = params;
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(operationId = "getMachineKey", summary = "A machine's registered key")
    @APIResponse(responseCode = "200", description = "the key", content = @Content(schema = @Schema(implementation = RegisteredMachineKey.class)))
    @APIResponse(responseCode = "400", description = "invalid machine name (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "404", description = "no key registered (unknown-machine)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<RegisteredMachineKey> show(@PathParam("machine") String machine) {
        String name = params.machine(machine);
        return keys.show(name).map(k -> {
            if (k == null) {
                throw new io.rediacc.gpu.inventory.service.UnknownMachineException("machine " + name + " has no registered key;"
                        + " rdc machine setup " + name + " registers it");
            }
            return k;
        });
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "registerMachineKey", summary = "Register a machine's public key", description = "Trusted on the operator's word; the same key "
            + "again changes nothing; another key for a machine that has one only with rekey=true (409 otherwise).")
    @APIResponse(responseCode = "200", description = "registered (changed says whether anything was written)",
            content = @Content(schema = @Schema(implementation = RegisteredMachineKey.class)))
    @APIResponse(responseCode = "400", description = "invalid machine or rekey (invalid-parameter), or key (invalid-key)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "the machine has another key and rekey is not true (machine-key-registered)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<RegisteredMachineKey> register(@PathParam("machine") String machine, @QueryParam("rekey") String rekey,
                                                MachineKeyRegistration body, @Context SecurityContext security) {
        String name = params.machine(machine);
        boolean again = params.flag("rekey", rekey);
        if (body == null || body.publicKey() == null || body.publicKey().isBlank()) {
            // the same code as grant-service's registration (docs/ERRORS.md)
            throw new io.rediacc.gpu.api.problem.ApiProblem(io.rediacc.gpu.api.problem.ProblemType.INVALID_KEY, "no public key given",
                    "send {\"publicKey\": \"<PEM>\"} with the machine's /etc/rediacc/gpu/machine-key.pub");
        }
        if (body.reason() != null && (body.reason().length() > 500 || body.reason().chars().anyMatch(Character::isISOControl))) {
            throw new InvalidParameterException("the reason must be at most 500 characters without control characters",
                    "shorten the reason");
        }
        PublicKey key = parse(body.publicKey());
        String actor = security.getUserPrincipal() == null ? "anonymous" : security.getUserPrincipal().getName();
        return keys.register(name, key, again, actor, body.reason());
    }

    private static PublicKey parse(String text) {
        try {
            return SigningKeys.parseOffered(text);
        } catch (IllegalArgumentException e) {
            throw new io.rediacc.gpu.api.problem.ApiProblem(io.rediacc.gpu.api.problem.ProblemType.INVALID_KEY,
                    "the public key cannot be read: " + e.getMessage(),
                    "send the machine's /etc/rediacc/gpu/machine-key.pub (PEM) or the base64 line node-agent prepare prints");
        }
    }
}
