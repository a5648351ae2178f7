package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.gate.config.GateConfig;

import java.nio.file.Path;
import java.time.Duration;

/** Everything a {@link Gate} needs to start, as plain values (tests build one directly). */
public record GateSettings(Path manifest, Duration manifestPollInterval, Path stateDir, String gateId,
                           Duration heartbeat, int maxBodyBytes, Duration daemonConnectTimeout,
                           Duration daemonInspectTimeout, int decisionsBurst, double decisionsPerSecond,
                           Duration kafkaApiTimeout, String bootstrapServers) {

    public static GateSettings of(GateConfig config, String bootstrapServers) {
        return new GateSettings(config.manifest(), config.manifestPollInterval(), config.stateDir(), config.id(),
                config.heartbeat(), config.maxBodyBytes(), config.daemonConnectTimeout(), config.daemonInspectTimeout(),
                config.decisionsBurst(), config.decisionsPerSecond(), config.kafkaApiTimeout(), bootstrapServers);
    }
}
