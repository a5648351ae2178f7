package io.rediacc.gpu.api.security;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.List;

/**
 * Refuses to start with weak configured tokens (short, or one secret for two principals), and says
 * in the log when the service will answer 401 to everyone or let everyone in.
 */
@ApplicationScoped
public class AuthStartupCheck {

    private static final Logger LOG = Logger.getLogger(AuthStartupCheck.class);

    private final ApiAuthConfig config;

    public AuthStartupCheck(ApiAuthConfig config) {
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        List<String> problems = TokenTable.problems(config.tokens());
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
            case JWT -> LOG.debug("api.auth.mode=jwt: SmallRye JWT verifies bearer tokens (mp.jwt.verify.*)");
        }
    }
}
