package io.rediacc.gpu.contracts.api;

/**
 * A machine's Kafka user as inventory-service answers {@code PUT} and {@code DELETE
 * /api/v1/machines/{machine}/kafka-user} (docs/SECURITY.md, "Kafka: one user per machine").
 *
 * @param principal the user name, {@code machine-<machine>}
 * @param mechanism the SASL mechanism of its credential ({@code SCRAM-SHA-512})
 * @param existed   whether the user had a credential before this request
 * @param present   whether it has one after it (false after a DELETE)
 */
public record MachineKafkaUser(String machine, String principal, String mechanism, boolean existed, boolean present) {
}
