package io.rediacc.gpu.api.security;

import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** An operator may read what it changes: whoever has {@code operator} (token or JWT groups) also has {@code viewer}. */
@ApplicationScoped
public class OperatorIsViewer implements SecurityIdentityAugmentor {

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        if (identity.isAnonymous() || !identity.hasRole(Roles.OPERATOR) || identity.hasRole(Roles.VIEWER)) {
            return Uni.createFrom().item(identity);
        }
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder(identity).addRole(Roles.VIEWER).build());
    }
}
