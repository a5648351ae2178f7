package io.rediacc.gpu.api.security;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigUtils;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Refuses to start with weak configured tokens (short, one secret for two principals, a
 * {@code change-me-*} placeholder outside the dev, test and local-fleet profiles) and with a jwt mode
 * that does not name its issuer and audience; says in the log when the service will answer 401 to
 * everyone or let everyone in.
 */
@ApplicationScoped
public class AuthStartupCheck {

    private static final Logger LOG = Logger.getLogger(AuthStartupCheck.class);

    /** The profiles in which deploy/'s {@code change-me-*} placeholder tokens may start a service. */
    static final Set<String> PLACEHOLDER_PROFILES = Set.of("dev", "test", "local-fleet");

    static final String ISSUER = "mp.jwt.verify.issuer";
    static final String AUDIENCES = "mp.jwt.verify.audiences";

    private final ApiAuthConfig config;

    public AuthStartupCheck(ApiAuthConfig config) {
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        var mp = ConfigProvider.getConfig();
        List<String> problems = refusals(config.mode(), config.tokens(), ConfigUtils.getProfiles(),
                mp.getOptionalValue(ISSUER, String.class), mp.getOptionalValue(AUDIENCES, String.class));
        if (!problems.isEmpty()) {
            throw new IllegalStateException("api.auth: " + String.join("; ", problems));
        }
        switch (config.mode()) {
            case NONE -> LOG.warn("api.auth.mode=none: authentication is off, every caller is an operator (development only)");
            case TOKENS -> {
                if (config.tokens().isEmpty()) {
                    LOG.warn("api.auth.mode=tokens and no api.auth.tokens.<name>.token configured: every /api call answers 401");
                }
            }
            case JWT -> LOG.debugf("api.auth.mode=jwt: SmallRye JWT verifies bearer tokens for issuer %s and audience %s",
                    mp.getOptionalValue(ISSUER, String.class).orElse(""), mp.getOptionalValue(AUDIENCES, String.class).orElse(""));
        }
    }

    /** Why the service must not start with this configuration; empty when it may. */
    static List<String> refusals(ApiAuthConfig.Mode mode, Map<String, ApiAuthConfig.ConfiguredToken> tokens,
                                 Collection<String> profiles, Optional<String> issuer, Optional<String> audiences) {
        boolean placeholdersAllowed = profiles.stream().anyMatch(PLACEHOLDER_PROFILES::contains);
        List<String> problems = new ArrayList<>(TokenTable.problems(tokens, placeholdersAllowed));
        if (mode == ApiAuthConfig.Mode.JWT) {
            if (issuer.filter(s -> !s.isBlank()).isEmpty()) {
                problems.add("api.auth.mode=jwt needs " + ISSUER + " (the iss every accepted token must carry)");
            }
            if (audiences.filter(s -> !s.isBlank()).isEmpty()) {
                problems.add("api.auth.mode=jwt needs " + AUDIENCES
                        + " (the aud every accepted token must carry, e.g. rediacc-gpu-api): a token minted for another service is not for this one");
            }
        }
        return problems;
    }
}
