package io.rediacc.gpu.api.security;

import io.quarkus.security.identity.request.BaseAuthenticationRequest;

/**
 * A bearer token to look up among the configured ones. A type of its own, so that SmallRye JWT's
 * identity provider (which takes {@code TokenAuthenticationRequest}) never sees it.
 */
final class ConfiguredTokenRequest extends BaseAuthenticationRequest {

    private final String token;

    ConfiguredTokenRequest(String token) {
        this.token = token;
    }

    String token() {
        return token;
    }
}
