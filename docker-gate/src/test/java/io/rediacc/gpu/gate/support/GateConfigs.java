package io.rediacc.gpu.gate.support;

import io.quarkus.runtime.configuration.DurationConverter;
import io.rediacc.gpu.gate.config.GateConfig;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

import java.time.Duration;
import java.util.Map;

/**
 * A {@link GateConfig} as the application's configuration builds it from {@code gate.*}
 * properties: the mapping's defaults and checks, Quarkus's durations ({@code 10s}, {@code PT0.2S}).
 */
public final class GateConfigs {

    private GateConfigs() {
    }

    /** The gate's configuration from {@code properties} ({@code gate.id=...}), the documented defaults for the rest. */
    public static GateConfig of(Map<String, String> properties) {
        return new SmallRyeConfigBuilder().withMapping(GateConfig.class)
                .withConverter(Duration.class, 200, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test properties", 400))
                .build().getConfigMapping(GateConfig.class);
    }
}
