package io.rediacc.gpu.grants.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import io.rediacc.gpu.grants.service.RepoGrants;

import java.time.Instant;
import java.util.List;

/**
 * The grants of one repo on one machine.
 *
 * @param repoGone the repo is no longer in the machine's inventory; its grants (by its last known GUID)
 *                 stay until revoked
 */
@Schema(requiredProperties = {"machine", "repo", "repoGuid", "repoGone", "grants"})
public record RepoGrantsView(String machine, String repo, String repoGuid, boolean repoGone, List<RepoGrant> grants) {

    /** One granted device name; {@code expiresAt} absent: it never expires. */
    @Schema(requiredProperties = {"device", "exclusive", "grantedBy", "grantedAt"})
    public record RepoGrant(String device, boolean exclusive, String grantedBy, Instant grantedAt, Instant expiresAt) {
    }

    static RepoGrantsView of(RepoGrants grants) {
        return new RepoGrantsView(grants.machine(), grants.repoName(), grants.repoGuid(), grants.repoGone(),
                grants.grants().stream().map(h -> new RepoGrant(h.grant().device(), h.grant().exclusive(),
                        h.grant().grantedBy(), h.grant().grantedAt(), h.expiresAt())).toList());
    }
}
