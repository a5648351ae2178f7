package io.rediacc.gpu.api.security;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * 401 and 403 of every service as the services' JSON error, {@code {"error","detail","hint"}}, with
 * {@code WWW-Authenticate: Bearer} on 401. Needs lazy authentication
 * ({@code quarkus.http.auth.proactive=false}), so that these exceptions reach the REST layer.
 */
public class AuthErrorMappers {

    /** The services' error shape; each service has its own class of it for its other errors. */
    @JsonPropertyOrder({"error", "detail", "hint"})
    public record AuthError(String error, String detail, String hint) {
    }

    static final String TOKEN_HINT = "send Authorization: Bearer <token> (rdc reads it from RDC_TOKEN or token: in its config file)";

    @ServerExceptionMapper
    public Response noCredentials(UnauthorizedException e) {
        return unauthorized("no bearer token: this call needs an authenticated caller");
    }

    @ServerExceptionMapper
    public Response badCredentials(AuthenticationFailedException e) {
        return unauthorized("the bearer token was refused (unknown, expired, or its signature does not verify)");
    }

    @ServerExceptionMapper
    public Response wrongRole(ForbiddenException e) {
        return Response.status(403).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new AuthError("forbidden",
                        "the caller lacks the role this call needs: reading needs viewer, granting and revoking need operator",
                        "ask an administrator for a token with the operator role, or use this one only to read"))
                .build();
    }

    private static Response unauthorized(String detail) {
        return Response.status(401).type(MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .entity(new AuthError("unauthorized", detail, TOKEN_HINT))
                .build();
    }
}
