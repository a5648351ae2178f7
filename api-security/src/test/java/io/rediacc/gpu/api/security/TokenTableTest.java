package io.rediacc.gpu.api.security;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The configured-token lookup and the checks that keep weak tokens out of the configuration. */
class TokenTableTest {

    record Token(String token, Set<String> roles) implements ApiAuthConfig.ConfiguredToken {
    }

    private static final Map<String, ApiAuthConfig.ConfiguredToken> TOKENS = Map.of(
            "alice", new Token("alice-operator-token-0123456789", Set.of(Roles.OPERATOR)),
            "reader", new Token("reader-viewer-token-0123456789", Set.of(Roles.VIEWER)));

    @Test
    void aConfiguredTokenNamesItsPrincipalAndRoles() {
        var match = TokenTable.match(TOKENS, "reader-viewer-token-0123456789").orElseThrow();

        assertThat(match.getKey()).isEqualTo("reader");
        assertThat(match.getValue().roles()).containsExactly(Roles.VIEWER);
    }

    @Test
    void aPrefixOrAnExtensionOfATokenIsNoToken() {
        assertThat(TokenTable.match(TOKENS, "alice-operator-token-012345678")).isEmpty();
        assertThat(TokenTable.match(TOKENS, "alice-operator-token-01234567890")).isEmpty();
        assertThat(TokenTable.match(TOKENS, "ALICE-OPERATOR-TOKEN-0123456789")).isEmpty();
        assertThat(TokenTable.match(Map.of(), "alice-operator-token-0123456789")).isEmpty();
    }

    @Test
    void shortAndSharedTokensAreConfigurationErrors() {
        assertThat(TokenTable.problems(TOKENS, false)).isEmpty();
        assertThat(TokenTable.problems(Map.of("short", new Token("fifteen-chars-x", Set.of())), false))
                .containsExactly("api.auth.tokens.short.token is shorter than 16 characters");
        assertThat(TokenTable.problems(Map.of("a", new Token("the-same-secret-for-two", Set.of()),
                "b", new Token("the-same-secret-for-two", Set.of())), false)).singleElement().asString().contains("the same token");
    }

    @Test
    void onlyTheBearerSchemeCarriesAToken() {
        assertThat(ConfiguredTokenMechanism.bearer("Bearer abc")).isEqualTo("abc");
        assertThat(ConfiguredTokenMechanism.bearer("bearer   abc  ")).isEqualTo("abc");
        assertThat(ConfiguredTokenMechanism.bearer("Basic YWxpY2U6cHc=")).isNull();
        assertThat(ConfiguredTokenMechanism.bearer("Bearer ")).isNull();
        assertThat(ConfiguredTokenMechanism.bearer("Bearer    ")).isNull();
        assertThat(ConfiguredTokenMechanism.bearer("Bearerabc")).isNull();
        assertThat(ConfiguredTokenMechanism.bearer(null)).isNull();
    }
}
