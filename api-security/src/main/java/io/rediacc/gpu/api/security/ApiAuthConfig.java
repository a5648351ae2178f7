package io.rediacc.gpu.api.security;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Who may call a service's {@code /api/v1} ({@code api.auth.*}): the same keys in every service that
 * depends on this module, so one token (or one JWT issuer) serves grant-service and inventory-service.
 */
@ConfigMapping(prefix = "api.auth")
public interface ApiAuthConfig {

    /**
     * {@code tokens}: bearer tokens listed under {@code api.auth.tokens} (the local fleet);
     * {@code jwt}: signed JWTs checked by SmallRye JWT ({@code mp.jwt.verify.*}), roles from the {@code groups} claim;
     * {@code none}: no authentication, every caller is an operator (development only).
     * The default, {@code tokens} with no token configured, answers 401 to every API call: it fails closed.
     */
    @WithDefault("tokens")
    Mode mode();

    /** Configured bearer tokens by principal name: {@code api.auth.tokens.alice.token=...}, {@code .roles=operator}. */
    Map<String, ConfiguredToken> tokens();

    /** Checks of a JWT beyond its signature, issuer and audience ({@code api.auth.jwt.*}). */
    Jwt jwt();

    /** The jwt mode's own limits. */
    interface Jwt {

        /**
         * The longest a token may be valid, from its {@code iat} to its {@code exp}; a longer-lived token
         * (or one without {@code iat}) is refused with 401. Default 24 h.
         */
        @WithDefault("24h")
        Duration maxLifetime();
    }

    /** One configured bearer token. */
    interface ConfiguredToken {

        /** The secret the client sends as {@code Authorization: Bearer <token>}; at least {@value TokenTable#MIN_LENGTH} characters. */
        String token();

        /** The principal's roles: {@code viewer} (read) and/or {@code operator} (change; implies viewer). */
        @WithDefault("viewer")
        Set<String> roles();
    }

    /** How callers authenticate. */
    enum Mode {
        TOKENS, JWT, NONE
    }
}
