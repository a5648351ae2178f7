package io.rediacc.gpu.gate.service;

import io.rediacc.gpu.gate.config.GateConfig;
import io.rediacc.gpu.gate.daemon.DaemonCheckSettings;
import io.rediacc.gpu.gate.pinning.Pins;
import io.rediacc.gpu.gate.proxy.ConnectionLimits;
import io.rediacc.gpu.gate.support.GateConfigs;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code gate.*} keys as the gate reads them: the documented defaults, and the checks that name the key. */
class GateConfigTest {

    @Test
    void everyKeyDefaultsToTheDocumentedValue() {
        GateConfig config = GateConfigs.of(Map.of());

        assertThat(config.manifest()).isEqualTo(Path.of("/etc/rediacc/gate/repos.yaml"));
        assertThat(config.manifestPollInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.stateDir()).isEqualTo(Path.of("/var/lib/rediacc/gate"));
        assertThat(config.id()).isEqualTo("gate");
        assertThat(config.grantsFreezeAfter()).isEqualTo(Duration.ofMinutes(30));
        assertThat(config.heartbeat()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxBodyBytes()).isEqualTo(4 << 20);
        assertThat(config.daemonConnectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.daemonInspectTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.decisionsBurst()).isEqualTo(20);
        assertThat(config.decisionsPerSecond()).isEqualTo(1.0);
        assertThat(config.kafkaApiTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.status().maxGrants()).isEqualTo(1000);
        assertThat(DaemonCheckSettings.of(config.daemonCheck())).isEqualTo(DaemonCheckSettings.DEFAULTS);
        assertThat(ConnectionLimits.of(config.connections())).isEqualTo(ConnectionLimits.DEFAULTS)
                .isEqualTo(new ConnectionLimits(Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(120),
                        512, 4096, 8L << 20, 32L << 20, 4L << 30));
    }

    @Test
    void theGatesFilesDefaultBesideTheManifest() {
        GateConfig defaults = GateConfigs.of(Map.of());
        GateConfig moved = GateConfigs.of(Map.of("gate.manifest", "/srv/gate/conf/repos.yaml"));

        assertThat(Gate.signingKey(defaults)).isEqualTo(Path.of("/etc/rediacc/gpu/machine-key.pem"));
        assertThat(Gate.grantsKeyFile(defaults)).isEqualTo(Path.of("/etc/rediacc/gate/grant-service-key.pub"));
        assertThat(Gate.pinRoot(defaults)).isEqualTo(Pins.DEFAULT_ROOT).isEqualTo(Path.of("/run/rediacc/binds"));
        assertThat(Gate.signingKey(moved)).isEqualTo(Path.of("/srv/gate/gpu/machine-key.pem"));
        assertThat(Gate.grantsKeyFile(moved)).isEqualTo(Path.of("/srv/gate/conf/grant-service-key.pub"));
    }

    @Test
    void namedFilesWinOverTheDefaults() {
        GateConfig config = GateConfigs.of(Map.of("gate.signing-key", "/k/machine.pem", "gate.grants-key", "/k/grants.pub",
                "gate.pin-root", "/run/pins"));

        assertThat(Gate.signingKey(config)).isEqualTo(Path.of("/k/machine.pem"));
        assertThat(Gate.grantsKeyFile(config)).isEqualTo(Path.of("/k/grants.pub"));
        assertThat(Gate.pinRoot(config)).isEqualTo(Path.of("/run/pins"));
    }

    @Test
    void connectionLimitsAndDaemonChecksAreConfigurable() {
        GateConfig config = GateConfigs.of(Map.of("gate.connections.header-timeout", "3s",
                "gate.connections.body-timeout", "4s", "gate.connections.idle-timeout", "5s",
                "gate.connections.max-per-repo", "6", "gate.connections.max-total", "7",
                "gate.connections.max-pending-bytes-per-repo", "8000000", "gate.connections.max-pending-bytes", "9000000",
                "gate.daemon-check.interval", "30s", "gate.daemon-check.retry-interval", "500ms",
                "gate.daemon-check.cdi-spec-dirs", "/etc/cdi,/var/run/cdi"));

        assertThat(ConnectionLimits.of(config.connections())).isEqualTo(new ConnectionLimits(Duration.ofSeconds(3),
                Duration.ofSeconds(4), Duration.ofSeconds(5), 6, 7, 8_000_000, 9_000_000));
        assertThat(DaemonCheckSettings.of(config.daemonCheck())).isEqualTo(new DaemonCheckSettings(Duration.ofSeconds(30),
                Duration.ofMillis(500), List.of("/etc/cdi", "/var/run/cdi")));
    }

    @Test
    void inconsistentValuesAreRefusedNamingTheKeys() {
        assertThatThrownBy(() -> ConnectionLimits.of(GateConfigs.of(Map.of("gate.connections.max-per-repo", "5000")).connections()))
                .hasMessageContaining("gate.connections.max-per-repo (5000)")
                .hasMessageContaining("gate.connections.max-total (4096)");
        assertThatThrownBy(() -> ConnectionLimits.of(GateConfigs.of(Map.of("gate.connections.idle-timeout", "0s")).connections()))
                .hasMessageContaining("gate.connections.idle-timeout must be positive");
        assertThatThrownBy(() -> new ConnectionLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                1, 1, 1000, 1000).checkFits(4096))
                .hasMessageContaining("below gate.max-body-bytes (4096)");
        assertThatThrownBy(() -> DaemonCheckSettings.of(GateConfigs.of(Map.of("gate.daemon-check.cdi-spec-dirs", "etc/cdi"))
                .daemonCheck())).hasMessageContaining("gate.daemon-check.cdi-spec-dirs").hasMessageContaining("not an absolute path");
        assertThatThrownBy(() -> GateConfigs.of(Map.of("gate.max-body-bytes", "four megabytes")))
                .hasMessageContaining("gate.max-body-bytes");
    }
}
