package io.rediacc.gpu.api.security;

import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Set;

/**
 * The mode switch ({@code api.auth.mode}): reads {@code Authorization: Bearer <token>} in the
 * {@code tokens} mode, and lets every caller in as an operator in the {@code none} mode. In the
 * {@code jwt} mode it stands aside: SmallRye JWT's own mechanism verifies the token.
 */
@ApplicationScoped
public class ConfiguredTokenMechanism implements HttpAuthenticationMechanism {

    /** Name of the principal when authentication is off. */
    public static final String UNAUTHENTICATED = "anonymous";

    private static final String BEARER = "bearer ";

    private final ApiAuthConfig config;

    public ConfiguredTokenMechanism(ApiAuthConfig config) {
        this.config = config;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        return switch (config.mode()) {
            case NONE -> Uni.createFrom().item(QuarkusSecurityIdentity.builder()
                    .setPrincipal(new QuarkusPrincipal(UNAUTHENTICATED))
                    .addRoles(Set.of(Roles.OPERATOR, Roles.VIEWER))
                    .build());
            case JWT -> Uni.createFrom().nullItem();
            case TOKENS -> {
                String token = bearer(context.request().getHeader(HttpHeaders.AUTHORIZATION));
                yield token == null ? Uni.createFrom().nullItem()
                        : identityProviderManager.authenticate(new ConfiguredTokenRequest(token));
            }
        };
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", "Bearer"));
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(ConfiguredTokenRequest.class);
    }

    @Override
    public int getPriority() {
        // before SmallRye JWT's mechanism, which would otherwise try to parse a configured token as a JWT
        return DEFAULT_PRIORITY + 1000;
    }

    /** The token of an {@code Authorization: Bearer <token>} header (scheme case-insensitive), or null. */
    static String bearer(String header) {
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String token = header.substring(BEARER.length()).strip();
        return token.isEmpty() ? null : token;
    }
}
