package io.rediacc.gpu.gate.daemon;

import java.time.Duration;
import java.util.List;

/**
 * How the gate verifies the repo daemons ({@code gate.daemon-check.*}).
 *
 * @param interval      between checks of a daemon found fit
 * @param retryInterval between checks of a daemon not (yet) fit: unchecked, unreachable or misconfigured,
 *                      so a fixed and restarted daemon is trusted again within seconds
 * @param cdiSpecDirs   the exact CDI spec directories every repo daemon must report (the product's: /etc/cdi)
 */
public record DaemonCheckSettings(Duration interval, Duration retryInterval, List<String> cdiSpecDirs) {

    public static final DaemonCheckSettings DEFAULTS =
            new DaemonCheckSettings(Duration.ofMinutes(1), Duration.ofSeconds(2), List.of("/etc/cdi"));

    /** The checks {@code gate.daemon-check.*} configure, validated. */
    public static DaemonCheckSettings of(io.rediacc.gpu.gate.config.GateConfig.DaemonCheck config) {
        return new DaemonCheckSettings(config.interval(), config.retryInterval(), config.cdiSpecDirs());
    }

    public DaemonCheckSettings {
        if (cdiSpecDirs == null || cdiSpecDirs.isEmpty()) {
            throw new IllegalArgumentException("gate.daemon-check.cdi-spec-dirs must name at least one directory");
        }
        for (String dir : cdiSpecDirs) {
            if (!dir.startsWith("/")) {
                throw new IllegalArgumentException("gate.daemon-check.cdi-spec-dirs: \"" + dir + "\" is not an absolute path");
            }
        }
        cdiSpecDirs = List.copyOf(cdiSpecDirs);
        if (interval.isNegative() || interval.isZero() || retryInterval.isNegative() || retryInterval.isZero()) {
            throw new IllegalArgumentException("gate.daemon-check intervals must be positive");
        }
    }
}
