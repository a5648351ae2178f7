package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.gate.config.GateConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Everything a {@link Gate} needs to start, as plain values (tests build one directly). */
public record GateSettings(Path manifest, Duration manifestPollInterval, Path stateDir, String gateId,
                           Duration heartbeat, int maxBodyBytes, Duration daemonConnectTimeout,
                           Duration daemonInspectTimeout, int decisionsBurst, double decisionsPerSecond,
                           Duration kafkaApiTimeout, Map<String, Object> kafka) {

    public GateSettings {
        kafka = Map.copyOf(kafka);
    }

    /**
     * @param kafka Kafka client settings: every {@code kafka.*} property without its prefix
     *              ({@code bootstrap.servers}, {@code security.protocol}, {@code sasl.*}, {@code ssl.*}, ...)
     */
    public static GateSettings of(GateConfig config, Map<String, Object> kafka) {
        return new GateSettings(config.manifest(), config.manifestPollInterval(), config.stateDir(), config.id(),
                config.heartbeat(), config.maxBodyBytes(), config.daemonConnectTimeout(), config.daemonInspectTimeout(),
                config.decisionsBurst(), config.decisionsPerSecond(), config.kafkaApiTimeout(), kafka);
    }
}
