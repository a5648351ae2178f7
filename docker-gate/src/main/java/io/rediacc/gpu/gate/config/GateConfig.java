package io.rediacc.gpu.gate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;

/** Settings of the gate process ({@code gate.*}); the repos it serves come from the manifest. */
@ConfigMapping(prefix = "gate")
public interface GateConfig {

    /** Path of the repos manifest (YAML); re-read when its content changes. */
    @WithDefault("/etc/rediacc/gate/repos.yaml")
    Path manifest();

    /** How often the manifest file is checked for changes. */
    @WithDefault("2s")
    Duration manifestPollInterval();

    /** Directory for the last applied grant snapshot, read at start so a Kafka outage does not lock repos out. */
    @WithDefault("/var/lib/rediacc/gate")
    Path stateDir();

    /**
     * The machine's key pair, which signs every record the gate publishes; default: {@code gpu/machine-key.pem}
     * beside the manifest's directory ({@code /etc/rediacc/gpu/machine-key.pem}), made by {@code node-agent prepare}.
     */
    java.util.Optional<Path> signingKey();

    /**
     * grant-service's public key (PEM, or its key pair file): the gate applies only grant snapshots signed
     * by it; default {@code grant-service-key.pub} in the manifest's directory
     * ({@code /etc/rediacc/gate/grant-service-key.pub}). The gate does not start without it.
     */
    java.util.Optional<Path> grantsKey();

    /**
     * Where the gate pins the host paths repos bind ({@code <pin-root>/<repo guid>/<id>}); default
     * {@code /run/rediacc/binds}. Must lie outside every {@code hostPaths} root and in the Docker
     * daemons' mount namespace (docs/SECURITY.md).
     */
    java.util.Optional<Path> pinRoot();

    /** This gate instance's id; with the machine name it keys the gate's status record. */
    @WithDefault("gate")
    String id();

    /**
     * How old the held grant snapshot's signature ({@code ce_time}) may grow before the gate reports its grants as
     * frozen ({@code grantsFrozen} in its status, {@code /q/health/ready} data): grant-service re-signs every
     * machine's newest snapshot each {@code grants.republish-interval} (10 min), so an older one means the gate is
     * being kept from newer grants (a frozen or replayed topic, a feed cut off).
     */
    @WithDefault("30m")
    Duration grantsFreezeAfter();

    /** Interval of the gate-status heartbeat; a gate silent for 3 heartbeats counts as gone. */
    @WithDefault("30s")
    Duration heartbeat();

    /** Largest request body the gate inspects; a bigger body on an inspected endpoint is refused (413). */
    @WithDefault("4194304")
    int maxBodyBytes();

    /** Time allowed to connect to a repo's Docker daemon. */
    @WithDefault("5s")
    Duration daemonConnectTimeout();

    /** Time allowed for the whole answer of a daemon lookup: a stored container before a start, a named volume before a request that uses it. */
    @WithDefault("10s")
    Duration daemonInspectTimeout();

    /** Refusals a repo may publish to gpu.gate-decisions.v1 in a burst; all are still counted in metrics. */
    @WithDefault("20")
    int decisionsBurst();

    /** Refusals per second a repo may publish once its burst is spent. */
    @WithDefault("1")
    double decisionsPerSecond();

    /** Time to wait for Kafka metadata and API calls before retrying (the gate keeps serving meanwhile). */
    @WithDefault("10s")
    Duration kafkaApiTimeout();

    /** How the repo daemons are verified ({@code GET /info}): runc default, exact CDI spec dirs. */
    DaemonCheck daemonCheck();

    interface DaemonCheck {
        /** Between checks of a daemon found fit. */
        @WithDefault("1m")
        Duration interval();

        /** Between checks of a daemon not fit (unchecked, unreachable, misconfigured). */
        @WithDefault("2s")
        Duration retryInterval();

        /** The exact CDI spec directories every repo daemon must report (the product's spec directory). */
        @WithDefault("/etc/cdi")
        java.util.List<String> cdiSpecDirs();
    }

    /** What one client may hold of the gate (timeouts, caps); see {@code ConnectionLimits}. */
    Connections connections();

    interface Connections {
        /** A request head must be complete this long after its first byte (or the connection's start): else 408. */
        @WithDefault("10s")
        Duration headerTimeout();

        /** An inspected body must be complete this long after its head; a streamed body may pause this long: else 408. */
        @WithDefault("60s")
        Duration bodyTimeout();

        /** A keep-alive connection between requests is closed after this long (hijacked and streaming ones are not idle). */
        @WithDefault("120s")
        Duration idleTimeout();

        /** Open connections per repo; more are answered 429. */
        @WithDefault("512")
        int maxPerRepo();

        /** Open connections of all repos together; more are answered 503. */
        @WithDefault("4096")
        int maxTotal();

        /** Bytes of unfinished request heads and inspected bodies one repo may have the gate hold; more: 429. */
        @WithDefault("8388608")
        long maxPendingBytesPerRepo();

        /** The same for all repos together; more: 503. */
        @WithDefault("33554432")
        long maxPendingBytes();

        /**
         * Bytes of one {@code docker cp} upload the gate holds (in an unlinked temporary file) until the
         * whole archive is judged, so a refused archive extracts nothing; more: 413.
         */
        @WithDefault("4294967296")
        long maxUploadBytes();
    }

    /** What the gate's status record ({@code gpu.gate-status.v1}) carries. */
    Status status();

    interface Status {
        /**
         * Most grants listed in the status record; above it the record carries only their count and
         * digest (100,000 grants would be a 19 MB record, over Kafka's 1 MiB limit).
         */
        @WithDefault("1000")
        int maxGrants();
    }
}
