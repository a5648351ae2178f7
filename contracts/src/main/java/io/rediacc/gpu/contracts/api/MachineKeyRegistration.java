package io.rediacc.gpu.contracts.api;

/**
 * The body of {@code PUT /api/v1/machines/{machine}/key} (grant-service and inventory-service take the
 * same): the key as PEM or base64 X.509 DER ({@code SigningKeys.parseOffered}), and why (kept in the
 * key's history).
 */
public record MachineKeyRegistration(String publicKey, String reason) {
}
