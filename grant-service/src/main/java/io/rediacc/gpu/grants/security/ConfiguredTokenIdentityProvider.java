package io.rediacc.gpu.grants.security;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;

/** Turns a configured bearer token ({@code grants.auth.tokens.<name>.token}) into its principal and roles. */
@ApplicationScoped
public class ConfiguredTokenIdentityProvider implements IdentityProvider<ConfiguredTokenRequest> {

    private final GrantsConfig config;

    public ConfiguredTokenIdentityProvider(GrantsConfig config) {
        this.config = config;
    }

    @Override
    public Class<ConfiguredTokenRequest> getRequestType() {
        return ConfiguredTokenRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(ConfiguredTokenRequest request, AuthenticationRequestContext context) {
        byte[] presented = request.token().getBytes(StandardCharsets.UTF_8);
        Map.Entry<String, GrantsConfig.ConfiguredToken> match = null;
        for (Map.Entry<String, GrantsConfig.ConfiguredToken> entry : config.auth().tokens().entrySet()) {
            // constant time per comparison, and every token is compared: the answer's timing does not say which one nearly matched
            if (MessageDigest.isEqual(presented, entry.getValue().token().getBytes(StandardCharsets.UTF_8))) {
                match = entry;
            }
        }
        if (match == null) {
            return Uni.createFrom().failure(new AuthenticationFailedException("the bearer token is not one this service knows"));
        }
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(match.getKey()))
                .addRoles(match.getValue().roles())
                .build());
    }
}
