package io.rediacc.gpu.api.security;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.rediacc.gpu.api.problem.TokenRefused;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.jwt.JsonWebToken;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * What a token says about its caller is checked like any other input before it becomes an audit
 * {@code actor} or {@code grantedBy}: the principal (a JWT's {@code upn}, else {@code preferred_username},
 * else {@code sub}) is 1-{@value #MAX_NAME} characters with no control, format or line-separator
 * character (a newline would forge a line of a log or a table, a bidi override would spell another
 * name), and a JWT is valid for at most {@code api.auth.jwt.max-lifetime} (exp − iat, default 24 h) and
 * not issued in the future — a token valid until 9999 is a password that never expires. A refused
 * token is 401 with the reason ({@link TokenRefused}).
 */
@ApplicationScoped
public class TokenPrincipalCheck implements SecurityIdentityAugmentor {

    /** Longest principal name accepted. */
    public static final int MAX_NAME = 128;
    /** How far ahead of this service's clock a token's {@code iat} may be (the issuer's clock may run ahead). */
    static final Duration ISSUED_AT_SKEW = Duration.ofMinutes(1);

    private final ApiAuthConfig config;
    private final Clock clock;

    @Inject
    public TokenPrincipalCheck(ApiAuthConfig config) {
        this(config, Clock.systemUTC());
    }

    TokenPrincipalCheck(ApiAuthConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    @Override
    public int priority() {
        return 100; // before OperatorIsViewer adds roles: a refused identity gets none
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        if (identity.isAnonymous()) {
            return Uni.createFrom().item(identity);
        }
        String refusal = principalRefusal(identity.getPrincipal() == null ? null : identity.getPrincipal().getName());
        if (refusal == null && identity.getPrincipal() instanceof JsonWebToken jwt) {
            refusal = lifetimeRefusal(seconds(jwt, "iat"), seconds(jwt, "exp"), clock.instant(), config.jwt().maxLifetime());
        }
        return refusal == null ? Uni.createFrom().item(identity) : Uni.createFrom().failure(
                new AuthenticationFailedException(refusal, new TokenRefused(refusal)));
    }

    /** Why the principal name may not stand for a caller, or null. */
    static String principalRefusal(String name) {
        if (name == null || name.isBlank()) {
            return "the token names no caller (no upn, preferred_username or sub)";
        }
        if (name.length() > MAX_NAME) {
            return "the token's caller name has " + name.length() + " characters; at most " + MAX_NAME + " are accepted";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            int type = Character.getType(c);
            if (Character.isISOControl(c) || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) {
                return "the token's caller name contains a control character (U+" + String.format("%04X", (int) c)
                        + " at " + i + "): a line break, tab, escape or direction mark is not part of a name";
            }
        }
        return null;
    }

    /** Why a JWT of these {@code iat} and {@code exp} (epoch seconds, null when absent) is refused at {@code now}, or null. */
    static String lifetimeRefusal(Long issuedAt, Long expiresAt, Instant now, Duration max) {
        if (issuedAt == null || expiresAt == null) {
            return "the token has no " + (issuedAt == null ? "iat (issued-at)" : "exp (expiry)")
                    + " claim; its lifetime must be known (at most " + max + ")";
        }
        if (Instant.ofEpochSecond(issuedAt).isAfter(now.plus(ISSUED_AT_SKEW))) {
            return "the token was issued in the future (iat " + Instant.ofEpochSecond(issuedAt) + ", now " + now + ")";
        }
        long lifetime = expiresAt - issuedAt;
        if (lifetime > max.toSeconds()) {
            return "the token is valid for " + Duration.ofSeconds(lifetime) + " (iat to exp); at most " + max
                    + " is accepted (api.auth.jwt.max-lifetime): ask the issuer for a shorter-lived token";
        }
        return null;
    }

    private static Long seconds(JsonWebToken jwt, String claim) {
        Object value = jwt.getClaim(claim);
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value instanceof jakarta.json.JsonNumber n) {
            return n.longValue();
        }
        return null;
    }
}
