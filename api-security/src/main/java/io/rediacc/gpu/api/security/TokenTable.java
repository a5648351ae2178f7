package io.rediacc.gpu.api.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Finds the principal of a presented bearer token among the configured ones, in constant time per token. */
final class TokenTable {

    /** Shortest token accepted in configuration: shorter secrets are guessable. */
    static final int MIN_LENGTH = 16;

    private TokenTable() {
    }

    static Optional<Map.Entry<String, ApiAuthConfig.ConfiguredToken>> match(
            Map<String, ApiAuthConfig.ConfiguredToken> tokens, String presented) {
        byte[] bytes = presented.getBytes(StandardCharsets.UTF_8);
        Map.Entry<String, ApiAuthConfig.ConfiguredToken> match = null;
        for (Map.Entry<String, ApiAuthConfig.ConfiguredToken> entry : tokens.entrySet()) {
            // every token is compared, each in constant time: the answer's timing does not say which one nearly matched
            if (MessageDigest.isEqual(bytes, entry.getValue().token().getBytes(StandardCharsets.UTF_8))) {
                match = entry;
            }
        }
        return Optional.ofNullable(match);
    }

    /** The prefix of the placeholder tokens in deploy/ ({@code change-me-operator}): never a real secret. */
    static final String PLACEHOLDER_PREFIX = "change-me";

    /**
     * What is wrong with the configured tokens (too short, shared by two principals, a {@code change-me-*}
     * placeholder where placeholders are not allowed); empty when nothing is.
     */
    static List<String> problems(Map<String, ApiAuthConfig.ConfiguredToken> tokens, boolean placeholdersAllowed) {
        List<String> problems = new java.util.ArrayList<>();
        Map<String, String> owners = new java.util.HashMap<>();
        tokens.forEach((name, t) -> {
            if (t.token().strip().length() < MIN_LENGTH) {
                problems.add("api.auth.tokens." + name + ".token is shorter than " + MIN_LENGTH + " characters");
            }
            if (!placeholdersAllowed && t.token().strip().toLowerCase(java.util.Locale.ROOT).startsWith(PLACEHOLDER_PREFIX)) {
                problems.add("api.auth.tokens." + name + ".token is the placeholder " + t.token().strip()
                        + ": set a secret of your own (e.g. openssl rand -hex 24); placeholders start only in the "
                        + String.join(", ", AuthStartupCheck.PLACEHOLDER_PROFILES) + " profiles");
            }
            String other = owners.putIfAbsent(t.token(), name);
            if (other != null) {
                problems.add("api.auth.tokens." + name + " and api.auth.tokens." + other + " have the same token");
            }
        });
        return problems;
    }
}
