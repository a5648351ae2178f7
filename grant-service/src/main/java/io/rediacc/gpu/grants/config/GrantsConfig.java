package io.rediacc.gpu.grants.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** Settings of the grant service ({@code grants.*}). */
@ConfigMapping(prefix = "grants")
public interface GrantsConfig {

    /** How long a grant or revoke waits for the machine's gates to apply it when the caller sends no {@code ?wait=}. */
    @WithDefault("5s")
    Duration ackWait();

    /** The longest {@code ?wait=} a caller may ask for; longer values are cut to this. */
    @WithDefault("60s")
    Duration maxAckWait();

    /** A gate counts as live while its last status is younger than this many of its heartbeats. */
    @WithDefault("3")
    int gateLivenessHeartbeats();

    /** Heartbeat assumed for a gate whose status does not state one. */
    @WithDefault("30s")
    Duration defaultGateHeartbeat();

    /** How long a change waits for its machine's lock before it gives up with 503 ({@code SET LOCAL lock_timeout}). */
    @WithDefault("5s")
    Duration lockTimeout();

    /** CloudEvents {@code ce_source} of every record this service publishes, e.g. {@code /grant-service/replica-1}. */
    @WithDefault("/grant-service")
    String eventSource();

    /**
     * Most grants one machine may hold; a grant beyond is 409 too-many-grants. Keeps the machine's
     * grant snapshot (one record) well under the topic's record size limit (docs/EVENTS.md).
     */
    @WithDefault("1000")
    int maxGrantsPerMachine();

    /** What the consumers accept from Kafka (docs/SECURITY.md, issue 16). */
    Input input();

    /** grant-service's own key pair, which signs every record the relay publishes (gates verify grants with it). */
    Signing signing();

    interface Signing {
        /**
         * The key pair file (private and public key, PEM, as {@code KeyPairFile} writes it). Every replica
         * must hold the same pair: gates and inventory-service are configured with its public half.
         */
        @WithDefault("/etc/rediacc/grant-service/signing-key.pem")
        java.nio.file.Path keyFile();

        /** Create the pair when the file is missing (the local fleet, tests); production provides the file. */
        @WithDefault("false")
        boolean createIfMissing();
    }

    interface Input {

        /** How far ahead of this service's clock a record's time may be; a later one is dropped (it would pin "newer"). */
        @WithDefault("2m")
        Duration maxClockSkew();

        /** Most gates the in-memory registry holds; statuses of further gates are dropped and counted. */
        @WithDefault("10000")
        int maxGates();
    }
    /**
     * How often each machine's newest grant snapshot is re-signed and re-published though nothing changed (issue
     * 31): compaction keeps the last offset per machine, so a replayed old record could otherwise stay the newest
     * for ever; gates report their grants frozen when their snapshot's signature is older than
     * {@code gate.grants-freeze-after} (30 min by default: keep this well under it).
     */
    @WithDefault("10m")
    Duration republishInterval();

    /** Most machines re-published in one pass (the next pass takes the rest). */
    @WithDefault("200")
    int republishBatch();

    /**
     * The longest each replica waits between looks for grants whose expiry passed (they are revoked as
     * {@code expired}) while some grant has an expiry. A look is set for the next expiry itself, so this only
     * bounds how late a wall-clock step forward is noticed; with no grant that expires, nothing is looked at.
     */
    @WithDefault("60s")
    Duration expiryInterval();

    /** Most expired grants revoked in one pass (the next pass takes the rest). */
    @WithDefault("100")
    int expiryBatch();

    /** The outbox relay that publishes committed changes to Kafka. */
    Relay relay();

    interface Relay {

        /**
         * How often an idle relay looks (one cheap statement) whether the outbox holds rows nothing woke it
         * for: a replica that died between its commit and its NOTIFY. Commits wake it at once (the local bell
         * and the outbox's NOTIFY) and a new LISTEN connection looks once for what it missed, so this is a
         * safety net, not the path of a change.
         */
        @WithDefault("60s")
        Duration pollInterval();

        /**
         * How soon the relay tries again while there is a backlog (rows it could not publish yet, or another
         * replica's relay is publishing) or after a failed pass (doubled per failure in a row, at most 10 s).
         */
        @WithDefault("500ms")
        Duration retryInterval();

        /** Most outbox rows published in one pass. */
        @WithDefault("200")
        int batchSize();

        /** How long the relay waits for the broker to acknowledge a record before it retries the pass. */
        @WithDefault("30s")
        Duration deliveryTimeout();

        /**
         * Largest record (key, value and headers, uncompressed) the service writes to its outbox and the
         * producer's {@code max.request.size}: below the topics' {@code max.message.bytes} (1 MiB, docs/EVENTS.md)
         * less room for the batch header, so the broker never refuses a record for its size.
         */
        @WithDefault("1000000")
        int maxRecordBytes();

        /** The producer's {@code compression.type}: gzip needs nothing beyond the JDK in any consumer (the gate, rdc). */
        @WithDefault("gzip")
        String compression();
    }
}
