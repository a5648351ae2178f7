package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.grants.signing.ServiceKey;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** grant-service's own public key, which gates verify grant snapshots with ({@code rdc machine setup} installs it). */
@Path("/api/v1/signing-key")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "machines")
public class SigningKeyResource {

    /** The key's id (as in {@code ce_rediacckeyid}) and PEM text. */
    public record SigningKeyView(String keyId, String publicKey) {
    }

    private final ServiceKey key;

    public SigningKeyResource(ServiceKey key) {
        this.key = key;
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(operationId = "getSigningKey", summary = "grant-service's public key", description = "Every record the relay publishes is signed with the"
            + " private half; gates apply only grant snapshots it signed (gate.grants-key).")
    public SigningKeyView show() {
        return new SigningKeyView(key.signer().keyId(), key.publicPem());
    }
}
