package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.grants.service.RepoGrants;

import java.time.Instant;
import java.util.List;

/** The grants of one repo on one machine. */
public record RepoGrantsView(String machine, String repo, String repoGuid, List<RepoGrant> grants) {

    /** One granted device name. */
    public record RepoGrant(String device, boolean exclusive, String grantedBy, Instant grantedAt) {
    }

    static RepoGrantsView of(RepoGrants grants) {
        return new RepoGrantsView(grants.machine(), grants.repoName(), grants.repoGuid(), grants.grants().stream()
                .map(g -> new RepoGrant(g.device(), g.exclusive(), g.grantedBy(), g.grantedAt())).toList());
    }
}
