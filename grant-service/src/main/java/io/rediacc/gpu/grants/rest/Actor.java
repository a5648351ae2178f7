package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.api.security.ApiAuthConfig;
import io.rediacc.gpu.api.security.ConfiguredTokenMechanism;
import jakarta.ws.rs.core.SecurityContext;

import java.util.regex.Pattern;

/**
 * Who makes a change, for {@code grantedBy} and the audit trail: the authenticated principal. Only
 * when authentication is off ({@code api.auth.mode=none}) does the {@code X-Actor} header name the
 * caller (else {@code anonymous}); with authentication on, the header is ignored, so that nobody can
 * record a change under someone else's name.
 */
final class Actor {

    static final String HEADER = "X-Actor";
    private static final Pattern PRINTABLE = Pattern.compile("[\\x21-\\x7e][\\x20-\\x7e]{0,127}");

    private Actor() {
    }

    static String of(SecurityContext security, String header, ApiAuthConfig.Mode mode) {
        if (mode != ApiAuthConfig.Mode.NONE) {
            return security.getUserPrincipal().getName();
        }
        if (header == null || header.isBlank()) {
            return ConfiguredTokenMechanism.UNAUTHENTICATED;
        }
        String actor = header.strip();
        if (!PRINTABLE.matcher(actor).matches()) {
            throw new ApiProblem(ProblemType.INVALID_ACTOR, "the " + HEADER + " header must be 1-128 printable ASCII characters",
                    "send a user or tool name such as alice or rdc/alice, or leave the header out");
        }
        return actor;
    }
}
