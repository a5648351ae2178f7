package io.rediacc.gpu.grants.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import io.rediacc.gpu.grants.service.Enforcement;
import io.rediacc.gpu.grants.service.GrantChange;
import io.rediacc.gpu.grants.service.Overlap;

import java.time.Instant;
import java.util.List;

/**
 * Answer to a grant call.
 *
 * @param created     a new grant was written (false: it existed already, or only its exclusive flag changed)
 * @param enforced    every live gate of the machine applies {@code version}
 * @param enforcement the same in words
 * @param overlaps    other repos' grants that share a card with this device (a warning)
 * @param expiresAt   when grant-service revokes it by itself (absent: never)
 */
@Schema(requiredProperties = {"machine", "repo", "repoGuid", "device", "exclusive", "version", "created", "enforced", "enforcement", "laggingGates", "overlaps"})
public record GrantResponse(String machine, String repo, String repoGuid, String device, boolean exclusive,
                            long version, boolean created, boolean enforced, String enforcement,
                            List<String> laggingGates, List<Overlap> overlaps, Instant expiresAt) {

    static GrantResponse of(GrantChange change, Enforcement enforcement) {
        return new GrantResponse(change.machine(), change.repoName(), change.repoGuid(), change.device(),
                change.exclusive(), change.version(), change.created(), enforcement.enforced(),
                enforcement.sentence(), enforcement.laggingGates(), change.overlaps(), change.expiresAt());
    }
}
