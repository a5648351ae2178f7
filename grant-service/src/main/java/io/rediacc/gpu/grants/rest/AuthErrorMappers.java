package io.rediacc.gpu.grants.rest;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * 401 and 403 as JSON errors like every other refusal. Authentication is lazy
 * ({@code quarkus.http.auth.proactive=false}) so that these exceptions reach the REST layer.
 */
public class AuthErrorMappers {

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
                .entity(new ApiError("forbidden", "the caller lacks the role this call needs: reading needs viewer, granting and revoking need operator",
                        "ask an administrator for a token with the operator role, or use this one only to read"))
                .build();
    }

    private static Response unauthorized(String detail) {
        return Response.status(401).type(MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .entity(new ApiError("unauthorized", detail,
                        "send Authorization: Bearer <token> (rdc reads it from RDC_TOKEN or token: in its config file)"))
                .build();
    }
}
