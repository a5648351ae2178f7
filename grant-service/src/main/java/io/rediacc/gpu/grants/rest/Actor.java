package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.grants.service.Problem;

import java.util.regex.Pattern;

/**
 * Who makes a change, for {@code grantedBy} and the audit trail: the {@code X-Actor} header until
 * authentication names the caller, else {@code anonymous}.
 */
final class Actor {

    static final String HEADER = "X-Actor";
    private static final Pattern PRINTABLE = Pattern.compile("[\\x21-\\x7e][\\x20-\\x7e]{0,127}");

    private Actor() {
    }

    static String of(String header) {
        if (header == null || header.isBlank()) {
            return "anonymous";
        }
        String actor = header.strip();
        if (!PRINTABLE.matcher(actor).matches()) {
            throw new Problem(Problem.Kind.BAD_INPUT, "invalid-actor",
                    "the " + HEADER + " header must be 1-128 printable ASCII characters",
                    "send a user or tool name such as alice or rdc/alice, or leave the header out");
        }
        return actor;
    }
}
