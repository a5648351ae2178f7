package io.rediacc.gpu.contracts.api;

import java.time.Instant;

/**
 * A machine's registered key as both services answer {@code GET} and {@code PUT /api/v1/machines/{machine}/key}.
 *
 * @param previousKeyId the key this registration replaced (null: a first registration, or nothing changed)
 * @param changed       whether the registration wrote anything (false: the same key again)
 */
public record RegisteredMachineKey(String machine, String keyId, String publicKey, String registeredBy, Instant registeredAt,
                                   String previousKeyId, boolean changed) {
}
