package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.contracts.api.GrantResponse;
import io.rediacc.gpu.contracts.api.RepoGrantsView;
import io.rediacc.gpu.contracts.api.RevokeResponse;
import io.rediacc.gpu.grants.service.Enforcement;
import io.rediacc.gpu.grants.service.GrantChange;
import io.rediacc.gpu.grants.service.RepoGrants;
import io.rediacc.gpu.grants.service.RevokeChange;

/** The service's results as the answers in contracts.api, the records rdc reads them with. */
final class Answers {

    private Answers() {
    }

    static GrantResponse grant(GrantChange change, Enforcement enforcement) {
        return new GrantResponse(change.machine(), change.repoName(), change.repoGuid(), change.device(),
                change.exclusive(), change.version(), change.created(), enforcement.enforced(),
                enforcement.sentence(), enforcement.laggingGates(), change.overlaps(), change.expiresAt());
    }

    static RevokeResponse revoke(RevokeChange change, Enforcement enforcement) {
        return new RevokeResponse(change.machine(), change.repoName(), change.repoGuid(), change.device(),
                change.version(), true, enforcement.enforced(), enforcement.sentence(), enforcement.laggingGates());
    }

    static RepoGrantsView repoGrants(RepoGrants grants) {
        return new RepoGrantsView(grants.machine(), grants.repoName(), grants.repoGuid(), grants.repoGone(),
                grants.grants().stream().map(h -> new RepoGrantsView.RepoGrant(h.grant().device(), h.grant().exclusive(),
                        h.grant().grantedBy(), h.grant().grantedAt(), h.expiresAt())).toList());
    }
}
