package io.rediacc.gpu.grants.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import io.rediacc.gpu.grants.service.Enforcement;
import io.rediacc.gpu.grants.service.RevokeChange;

import java.util.List;

/** Answer to a revoke call; {@code enforced} says whether every live gate applies {@code version}. */
@Schema(requiredProperties = {"machine", "repo", "repoGuid", "device", "version", "revoked", "enforced", "enforcement", "laggingGates"})
public record RevokeResponse(String machine, String repo, String repoGuid, String device, long version,
                             boolean revoked, boolean enforced, String enforcement, List<String> laggingGates) {

    static RevokeResponse of(RevokeChange change, Enforcement enforcement) {
        return new RevokeResponse(change.machine(), change.repoName(), change.repoGuid(), change.device(),
                change.version(), true, enforcement.enforced(), enforcement.sentence(), enforcement.laggingGates());
    }
}
