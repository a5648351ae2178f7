package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.gate.config.GateConfig;
import io.rediacc.gpu.gate.daemon.DaemonCheckSettings;
import io.rediacc.gpu.gate.messaging.GateStatusPublisher;
import io.rediacc.gpu.gate.proxy.ConnectionLimits;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Everything a {@link Gate} needs to start, as plain values (tests build one directly). */
public record GateSettings(Path manifest, Duration manifestPollInterval, Path stateDir, String gateId,
                           Duration heartbeat, int maxBodyBytes, Duration daemonConnectTimeout,
                           Duration daemonInspectTimeout, int decisionsBurst, double decisionsPerSecond,
                           Duration kafkaApiTimeout, Map<String, Object> kafka, int statusMaxGrants,
                           DaemonCheckSettings daemonCheck, ConnectionLimits connections, Path signingKey,
                           Path grantsKey, Path pinRoot, Duration grantsFreezeAfter) {

    /** The default of {@code gate.status.max-grants}. */
    public static final int STATUS_MAX_GRANTS = 1000;
    /** The default of {@code gate.grants-freeze-after} (kept with the status it shapes). */
    public static final Duration GRANTS_FREEZE_AFTER = GateStatusPublisher.DEFAULT_FREEZE_AFTER;

    public GateSettings {
        kafka = Map.copyOf(kafka);
        daemonCheck = daemonCheck == null ? DaemonCheckSettings.DEFAULTS : daemonCheck;
        connections = connections == null ? ConnectionLimits.DEFAULTS : connections;
        // the machine's key pair lies beside the gate's directory: /etc/rediacc/gate/repos.yaml → /etc/rediacc/gpu/machine-key.pem
        signingKey = signingKey != null ? signingKey
                : manifest.toAbsolutePath().getParent().resolveSibling("gpu").resolve(Path.of(KeyPairFile.MACHINE_KEY).getFileName());
        grantsKey = grantsKey != null ? grantsKey : manifest.toAbsolutePath().getParent().resolve(GRANTS_KEY_FILE);
        pinRoot = pinRoot != null ? pinRoot : io.rediacc.gpu.gate.pinning.Pins.DEFAULT_ROOT;
        grantsFreezeAfter = grantsFreezeAfter != null ? grantsFreezeAfter : GRANTS_FREEZE_AFTER;
    }

    /** The same settings reporting grants frozen once the held snapshot's signature is older than {@code bound}. */
    public GateSettings withGrantsFreezeAfter(Duration bound) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka,
                statusMaxGrants, daemonCheck, connections, signingKey, grantsKey, pinRoot, bound);
    }

    /** The same settings pinning bind sources under {@code dir} ({@code gate.pin-root}). */
    public GateSettings withPinRoot(Path dir) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka,
                statusMaxGrants, daemonCheck, connections, signingKey, grantsKey, dir, grantsFreezeAfter);
    }

    /** The file name of grant-service's public key beside the manifest, when {@code gate.grants-key} names none. */
    public static final String GRANTS_KEY_FILE = "grant-service-key.pub";

    /** The same settings trusting grant snapshots signed by the key in {@code file}. */
    public GateSettings withGrantsKey(Path file) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka,
                statusMaxGrants, daemonCheck, connections, signingKey, file, pinRoot, grantsFreezeAfter);
    }

    /** Settings with the default status cap ({@value #STATUS_MAX_GRANTS} grants listed), daemon check and connection limits. */
    public GateSettings(Path manifest, Duration manifestPollInterval, Path stateDir, String gateId,
                        Duration heartbeat, int maxBodyBytes, Duration daemonConnectTimeout,
                        Duration daemonInspectTimeout, int decisionsBurst, double decisionsPerSecond,
                        Duration kafkaApiTimeout, Map<String, Object> kafka) {
        this(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes, daemonConnectTimeout,
                daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka, STATUS_MAX_GRANTS,
                null, null, null, null, null, null);
    }

    /** The same settings listing at most {@code max} grants in the status record. */
    public GateSettings withStatusMaxGrants(int max) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka, max,
                daemonCheck, connections, signingKey, grantsKey, pinRoot, grantsFreezeAfter);
    }

    /** The same settings with another daemon check (e.g. a test root's CDI spec directory). */
    public GateSettings withDaemonCheck(DaemonCheckSettings check) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka,
                statusMaxGrants, check, connections, signingKey, grantsKey, pinRoot, grantsFreezeAfter);
    }

    /** The same settings with other connection limits. */
    public GateSettings withConnections(ConnectionLimits limits) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, maxBodyBytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka,
                statusMaxGrants, daemonCheck, limits, signingKey, grantsKey, pinRoot, grantsFreezeAfter);
    }

    /** The same settings inspecting bodies of at most {@code bytes}. */
    public GateSettings withMaxBodyBytes(int bytes) {
        return new GateSettings(manifest, manifestPollInterval, stateDir, gateId, heartbeat, bytes,
                daemonConnectTimeout, daemonInspectTimeout, decisionsBurst, decisionsPerSecond, kafkaApiTimeout, kafka,
                statusMaxGrants, daemonCheck, connections, signingKey, grantsKey, pinRoot, grantsFreezeAfter);
    }

    /**
     * @param kafka Kafka client settings: every {@code kafka.*} property without its prefix
     *              ({@code bootstrap.servers}, {@code security.protocol}, {@code sasl.*}, {@code ssl.*}, ...)
     */
    public static GateSettings of(GateConfig config, Map<String, Object> kafka) {
        return new GateSettings(config.manifest(), config.manifestPollInterval(), config.stateDir(), config.id(),
                config.heartbeat(), config.maxBodyBytes(), config.daemonConnectTimeout(), config.daemonInspectTimeout(),
                config.decisionsBurst(), config.decisionsPerSecond(), config.kafkaApiTimeout(), kafka,
                config.status().maxGrants(), new DaemonCheckSettings(config.daemonCheck().interval(),
                        config.daemonCheck().retryInterval(), config.daemonCheck().cdiSpecDirs()),
                connections(config.connections()), config.signingKey().orElse(null),
                config.grantsKey().orElse(null), config.pinRoot().orElse(null), config.grantsFreezeAfter());
    }

    private static ConnectionLimits connections(GateConfig.Connections c) {
        return new ConnectionLimits(c.headerTimeout(), c.bodyTimeout(), c.idleTimeout(), c.maxPerRepo(), c.maxTotal(),
                c.maxPendingBytesPerRepo(), c.maxPendingBytes(), c.maxUploadBytes());
    }
}
