package io.rediacc.gpu.contracts.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Instant;
import java.util.List;

/**
 * The grants of one repo on one machine ({@code GET /api/v1/repos/{repo}/grants}).
 *
 * @param repoGone the repo is no longer in the machine's inventory; its grants (by its last known GUID)
 *                 stay until revoked
 */
@Schema(requiredProperties = {"machine", "repo", "repoGuid", "repoGone", "grants"})
public record RepoGrantsView(String machine, String repo, String repoGuid, boolean repoGone, List<RepoGrant> grants) {

    public RepoGrantsView {
        grants = grants == null ? List.of() : grants;
    }

    /** One granted device name; {@code expiresAt} absent: it never expires. */
    @Schema(requiredProperties = {"device", "exclusive", "grantedBy", "grantedAt"})
    public record RepoGrant(String device, boolean exclusive, String grantedBy, Instant grantedAt, Instant expiresAt) {
    }
}
