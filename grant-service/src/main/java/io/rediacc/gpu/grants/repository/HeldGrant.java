package io.rediacc.gpu.grants.repository;

import io.rediacc.gpu.contracts.events.Grant;

import java.time.Instant;

/** A grant as the database holds it: the published grant and when it expires (null: never). */
public record HeldGrant(Grant grant, Instant expiresAt) {
}
