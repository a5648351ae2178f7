package io.rediacc.gpu.api.security;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Turns a configured bearer token ({@code api.auth.tokens.<name>.token}) into its principal and roles. */
@ApplicationScoped
public class ConfiguredTokenIdentityProvider implements IdentityProvider<ConfiguredTokenRequest> {

    private final ApiAuthConfig config;

    public ConfiguredTokenIdentityProvider(ApiAuthConfig config) {
        this.config = config;
    }

    @Override
    public Class<ConfiguredTokenRequest> getRequestType() {
        return ConfiguredTokenRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(ConfiguredTokenRequest request, AuthenticationRequestContext context) {
        return TokenTable.match(config.tokens(), request.token())
                .map(match -> Uni.createFrom().<SecurityIdentity>item(QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(match.getKey()))
                        .addRoles(match.getValue().roles())
                        .build()))
                .orElseGet(() -> Uni.createFrom().failure(
                        new AuthenticationFailedException("the bearer token is not one this service knows")));
    }
}
