package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.api.MachineKafkaCredential;
import io.rediacc.gpu.contracts.api.MachineKafkaUser;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.inventory.kafka.MachineKafkaUsers;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * A machine's Kafka user ({@code machine-<name>}): its node-agent and docker-gate log in with it and may write
 * only the topics machines write and read only grants (contracts {@code KafkaAccess}), under a quota of its own.
 * {@code rdc machine setup} puts it, {@code rdc machine remove} deletes it (docs/SECURITY.md).
 */
@Path("/api/v1/machines/{machine}/kafka-user")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "machines")
public class MachineKafkaUserResource {

    private final MachineKafkaUsers users;
    private final ListParameters params;

    public MachineKafkaUserResource(MachineKafkaUsers users, ListParameters params) {
        this.users = users;
        this.params = params;
    }

    @PUT
    @Blocking
    @Consumes(MediaType.APPLICATION_JSON)
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "putMachineKafkaUser", summary = "Create or update a machine's Kafka user",
            description = "SCRAM-SHA-512 credential with the given password, exactly a machine's ACLs, the machine quota."
                    + " The same password again changes nothing a client sees.")
    @APIResponse(responseCode = "200", description = "the user (existed says whether it had a credential before)",
            content = @Content(schema = @Schema(implementation = MachineKafkaUser.class)))
    @APIResponse(responseCode = "400", description = "invalid machine name or password (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "this service does not manage Kafka users (kafka-users-not-managed)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "503", description = "Kafka did not answer or refused (kafka-unavailable)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public MachineKafkaUser put(@PathParam("machine") String machine, MachineKafkaCredential body, @Context SecurityContext security) {
        String name = params.machine(machine);
        if (body == null || !KafkaAccess.validPassword(body.password())) {
            throw new InvalidParameterException("the password must be 32-128 characters of A-Z, a-z, 0-9, '_' or '-'",
                    "send {\"password\": \"<random>\"}; rdc machine setup makes one and keeps it on the machine");
        }
        return users.ensure(name, body.password(), actor(security));
    }

    @DELETE
    @Blocking
    @RolesAllowed(Roles.OPERATOR)
    @Operation(operationId = "deleteMachineKafkaUser", summary = "Delete a machine's Kafka user",
            description = "Its credential, ACLs and quota: the machine's clients can no longer log in or write. Deleting an"
                    + " absent user answers present=false, existed=false.")
    @APIResponse(responseCode = "200", description = "deleted (or absent)", content = @Content(schema = @Schema(implementation = MachineKafkaUser.class)))
    @APIResponse(responseCode = "400", description = "invalid machine name (invalid-parameter)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "409", description = "this service does not manage Kafka users (kafka-users-not-managed)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    @APIResponse(responseCode = "503", description = "Kafka did not answer or refused (kafka-unavailable)", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public MachineKafkaUser delete(@PathParam("machine") String machine, @Context SecurityContext security) {
        return users.remove(params.machine(machine), actor(security));
    }

    private static String actor(SecurityContext security) {
        return security.getUserPrincipal() == null ? "anonymous" : security.getUserPrincipal().getName();
    }
}
