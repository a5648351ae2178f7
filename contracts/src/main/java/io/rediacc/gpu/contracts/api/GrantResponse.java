package io.rediacc.gpu.contracts.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;

/**
 * Answer to a grant call ({@code POST /api/v1/repos/{repo}/grants}).
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

    public GrantResponse {
        laggingGates = laggingGates == null ? List.of() : laggingGates;
        overlaps = overlaps == null ? List.of() : overlaps;
    }
}
