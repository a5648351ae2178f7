package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.gate.config.GateConfig;
import io.rediacc.gpu.gate.proxy.ConnectionLimits;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code gate.connections.*} keys reach the gate's settings, with the documented defaults. */
class GateSettingsTest {

    private static GateSettings settings(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(GateConfig.class)
                .withConverter(Duration.class, 200, new io.quarkus.runtime.configuration.DurationConverter())
                .withDefaultValues(properties).build();
        return GateSettings.of(config.getConfigMapping(GateConfig.class), Map.of());
    }

    @Test
    void connectionLimitsDefaultToTheDocumentedValues() {
        assertThat(settings(Map.of()).connections()).isEqualTo(ConnectionLimits.DEFAULTS)
                .isEqualTo(new ConnectionLimits(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(120),
                        512, 4096, 8L << 20, 32L << 20));
    }

    @Test
    void connectionLimitsAreConfigurable() {
        ConnectionLimits limits = settings(Map.of("gate.connections.header-timeout", "3s",
                "gate.connections.body-timeout", "4s", "gate.connections.idle-timeout", "5s",
                "gate.connections.max-per-repo", "6", "gate.connections.max-total", "7",
                "gate.connections.max-pending-bytes-per-repo", "8000000", "gate.connections.max-pending-bytes", "9000000"))
                .connections();
        assertThat(limits).isEqualTo(new ConnectionLimits(Duration.ofSeconds(3), Duration.ofSeconds(4),
                Duration.ofSeconds(5), 6, 7, 8_000_000, 9_000_000));
    }

    @Test
    void inconsistentLimitsAreRefusedNamingTheKeys() {
        assertThatThrownBy(() -> settings(Map.of("gate.connections.max-per-repo", "5000")))
                .hasMessageContaining("gate.connections.max-per-repo (5000)")
                .hasMessageContaining("gate.connections.max-total (4096)");
        assertThatThrownBy(() -> new ConnectionLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                1, 1, 1000, 1000).checkFits(4096))
                .hasMessageContaining("below gate.max-body-bytes (4096)");
    }
}
