package io.rediacc.gpu.contracts.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.List;

/**
 * Answer to a revoke call ({@code DELETE /api/v1/repos/{repo}/grants/{device}}); {@code enforced} says
 * whether every live gate applies {@code version}.
 */
@Schema(requiredProperties = {"machine", "repo", "repoGuid", "device", "version", "revoked", "enforced", "enforcement", "laggingGates"})
public record RevokeResponse(String machine, String repo, String repoGuid, String device, long version,
                             boolean revoked, boolean enforced, String enforcement, List<String> laggingGates) {

    public RevokeResponse {
        laggingGates = laggingGates == null ? List.of() : laggingGates;
    }
}
