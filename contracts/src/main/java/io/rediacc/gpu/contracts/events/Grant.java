package io.rediacc.gpu.contracts.events;

import java.time.Instant;

/** One grant: one repo (by GUID) may use one CDI device name, optionally exclusively. */
public record Grant(String repoGuid, String repoName, String device, boolean exclusive, String grantedBy,
                    Instant grantedAt) {
}
