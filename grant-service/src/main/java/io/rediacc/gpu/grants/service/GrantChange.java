package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.api.Overlap;

import java.time.Instant;
import java.util.List;

/**
 * The result of a grant call once its transaction committed.
 *
 * @param version  the machine's grant version after the call (unchanged when nothing changed)
 * @param changed  false when the same grant already existed (idempotent repeat)
 * @param created  true when a new grant was written; false for a repeat or an exclusive-flag change
 * @param overlaps other repos' grants on this machine that share a card with the device
 * @param expiresAt when the grant expires (null: never)
 */
public record GrantChange(String machine, String repoName, String repoGuid, String device, boolean exclusive,
                          long version, boolean changed, boolean created, List<Overlap> overlaps, Instant expiresAt) {
}
