package io.rediacc.gpu.api.security;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** api.rate-limit.* as SmallRye Config maps it: the defaults, and a principal's own limits over them. */
class RateLimitConfigTest {

    private static RateLimitConfig mapped(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(RateLimitConfig.class)
                // Quarkus's reading of durations ("1m", "1h", "0s"), as the services have it
                .withConverter(Duration.class, 100, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                .build();
        return config.getConfigMapping(RateLimitConfig.class);
    }

    @Test
    void withoutPrincipalsEveryoneHasTheDefaults() {
        RateLimitConfig config = mapped(Map.of());

        assertThat(config.enabled()).isTrue();
        assertThat(config.limitOf("alice")).isEqualTo(new RateLimitConfig.Limit(60, 600, Duration.ofMinutes(1)));
        assertThat(config.limitOf("alice")).hasToString("60 at once, 600 per PT1M");
        assertThat(config.problems()).isEmpty();
    }

    @Test
    void aNamedPrincipalHasItsOwnLimitsAndTheDefaultsForWhatItLeavesOut() {
        RateLimitConfig config = mapped(Map.of(
                "api.rate-limit.burst", "10",
                "api.rate-limit.principals.\"ci-bot\".burst", "500",
                "api.rate-limit.principals.\"ci-bot\".writes", "5000",
                // a JWT subject may hold dots: the quoted key keeps it one name
                "api.rate-limit.principals.\"svc.deployer@example.org\".period", "1h"));

        assertThat(config.limitOf("ci-bot")).isEqualTo(new RateLimitConfig.Limit(500, 5000, Duration.ofMinutes(1)));
        assertThat(config.limitOf("svc.deployer@example.org")).isEqualTo(new RateLimitConfig.Limit(10, 600, Duration.ofHours(1)));
        // names match exactly: another principal, or another spelling, has the defaults
        assertThat(config.limitOf("CI-BOT")).isEqualTo(new RateLimitConfig.Limit(10, 600, Duration.ofMinutes(1)));
        assertThat(config.limitOf("alice")).isEqualTo(new RateLimitConfig.Limit(10, 600, Duration.ofMinutes(1)));
        assertThat(config.problems()).isEmpty();
    }

    @Test
    void aLimitBucket4jWouldRefuseIsAProblemNamingItsKey() {
        RateLimitConfig config = mapped(Map.of(
                "api.rate-limit.writes", "0",
                "api.rate-limit.principals.\"ci-bot\".burst", "0",
                "api.rate-limit.principals.\"ci-bot\".period", "0s",
                "api.rate-limit.principals.fine.burst", "1"));

        assertThat(config.problems()).containsExactly(
                "api.rate-limit.writes must be at least 1 (is 0)",
                "api.rate-limit.principals.\"ci-bot\".burst must be at least 1 (is 0)",
                "api.rate-limit.principals.\"ci-bot\".period must be positive (is PT0S)");
    }
}
