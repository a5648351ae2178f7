package io.rediacc.gpu.api.security;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.rediacc.gpu.api.security.ApiAuthConfig.Mode.JWT;
import static io.rediacc.gpu.api.security.ApiAuthConfig.Mode.TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

/** The configurations a service refuses to start with, each refusal naming the property to fix. */
class AuthStartupCheckTest {

    private static final Map<String, ApiAuthConfig.ConfiguredToken> PLACEHOLDER = Map.of(
            "operator", new TokenTableTest.Token("change-me-operator", Set.of(Roles.OPERATOR)));

    @Test
    void deploysPlaceholderTokenRefusesToStartInProduction() {
        assertThat(AuthStartupCheck.refusals(TOKENS, PLACEHOLDER, List.of("prod"), Optional.empty(), Optional.empty()))
                .singleElement().asString()
                .contains("api.auth.tokens.operator.token is the placeholder change-me-operator")
                .contains("local-fleet");
        assertThat(AuthStartupCheck.refusals(TOKENS, PLACEHOLDER, List.of("kubernetes", "prod"), Optional.empty(), Optional.empty()))
                .hasSize(1);
    }

    @Test
    void placeholderTokensStartInTheDevTestAndLocalFleetProfiles() {
        for (String profile : List.of("dev", "test", "local-fleet")) {
            assertThat(AuthStartupCheck.refusals(TOKENS, PLACEHOLDER, List.of(profile), Optional.empty(), Optional.empty()))
                    .as(profile).isEmpty();
        }
    }

    @Test
    void jwtModeWithoutIssuerOrAudienceRefusesToStart() {
        assertThat(AuthStartupCheck.refusals(JWT, Map.of(), List.of("prod"), Optional.empty(), Optional.of("rediacc-gpu-api")))
                .singleElement().asString().contains("mp.jwt.verify.issuer");
        assertThat(AuthStartupCheck.refusals(JWT, Map.of(), List.of("prod"), Optional.of("https://issuer"), Optional.of(" ")))
                .singleElement().asString().contains("mp.jwt.verify.audiences");
        assertThat(AuthStartupCheck.refusals(JWT, Map.of(), List.of("prod"), Optional.of("https://issuer"), Optional.of("rediacc-gpu-api")))
                .isEmpty();
        assertThat(AuthStartupCheck.refusals(TOKENS, Map.of(), List.of("prod"), Optional.empty(), Optional.empty())).isEmpty();
    }
}
