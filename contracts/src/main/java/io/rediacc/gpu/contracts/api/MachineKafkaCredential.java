package io.rediacc.gpu.contracts.api;

/**
 * The body of {@code PUT /api/v1/machines/{machine}/kafka-user}: the password of the machine's Kafka user,
 * made by {@code rdc machine setup} and kept on the machine ({@code /etc/rediacc/gpu/kafka.env}, mode 0600).
 * 32-128 characters of {@code [A-Za-z0-9_-]}; the same password again changes nothing a client sees.
 */
public record MachineKafkaCredential(String password) {
}
