package io.rediacc.gpu.inventory.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** Settings of the fleet read model: when an inventory is stale, when a gate is gone, page sizes. */
@ConfigMapping(prefix = "inventory")
public interface InventoryConfig {

    /** How often node-agent re-publishes a machine's inventory when nothing changes. */
    @WithDefault("60s")
    Duration heartbeat();

    /** Heartbeats an inventory may miss before the machine is reported stale. */
    @WithDefault("3")
    int staleAfterHeartbeats();

    /** Heartbeats (the gate's own heartbeatSeconds) a gate may miss before it no longer counts as live. */
    @WithDefault("3")
    int gateLiveHeartbeats();

    /** Page size of a list request that names none. */
    @WithDefault("50")
    int defaultPageSize();

    /** Largest page size a list request may ask for. */
    @WithDefault("500")
    int maxPageSize();

    /** How often the machine gauges (known, stale) are recomputed from the database. */
    @WithDefault("15s")
    Duration metricsRefresh();

    /**
     * How far ahead of this service's clock a record's time ({@code generatedAt}, {@code syncedAt}, the
     * record timestamp) may be; a later record is dropped and counted: "newer" wins, so a future time
     * would pin a machine's or gate's state.
     */
    @WithDefault("2m")
    Duration maxClockSkew();

    /** Who may speak for whom on the topics (docs/SECURITY.md, "Signed records"). */
    Signing signing();

    interface Signing {
        /** grant-service's public key (PEM): a tombstone counts only when it signed it (the machine-removal path). */
        @WithDefault("/etc/rediacc/inventory-service/grant-service-key.pub")
        java.nio.file.Path serviceKey();

        /** Tests only: create a key pair at {@code service-key} when it is missing. */
        @WithDefault("false")
        boolean createIfMissing();
    }

    /** Machines' Kafka users (docs/SECURITY.md, "Kafka: one user per machine"). */
    KafkaUsers kafkaUsers();

    interface KafkaUsers {
        /**
         * Whether this service creates and deletes machines' Kafka users ({@code PUT/DELETE
         * /api/v1/machines/{m}/kafka-user}); off where Strimzi's user operator owns the users, or the
         * broker has no authentication (409 kafka-users-not-managed).
         */
        @WithDefault("false")
        boolean enabled();

        /**
         * The admin user it does this as (needs {@code Alter} and {@code AlterConfigs} on the cluster);
         * unset: the service's own {@code kafka.sasl.jaas.config}.
         */
        java.util.Optional<String> adminUsername();

        java.util.Optional<String> adminPassword();

        /** How long one Admin request may take before the answer is 503 kafka-unavailable. */
        @WithDefault("15s")
        Duration timeout();

        /** Each machine user's quota: bytes per second it may produce (all its clients together, per broker). */
        @WithDefault("1048576")
        long producerByteRate();

        /** Bytes per second it may fetch (a gate reads the whole grants topic at start). */
        @WithDefault("8388608")
        long consumerByteRate();

        /** Share of a broker's request threads' time, in percent of one thread. */
        @WithDefault("25")
        double requestPercentage();

        /**
         * How often the removed machines' users still to delete are looked at: the deletion after a machine's signed
         * removal is read, and its retries while the broker's admin API fails.
         */
        @WithDefault("2s")
        Duration removalCheck();

        /** The wait after a first failed deletion of a removed machine's user; it doubles per failure up to removal-retry-max. */
        @WithDefault("2s")
        Duration removalRetry();

        /** The longest wait between two tries of a removed machine's user deletion. */
        @WithDefault("5m")
        Duration removalRetryMax();
    }

    /** Age after which an inventory counts as stale: {@code heartbeat × staleAfterHeartbeats}. */
    default Duration staleAfter() {
        return heartbeat().multipliedBy(staleAfterHeartbeats());
    }
}
