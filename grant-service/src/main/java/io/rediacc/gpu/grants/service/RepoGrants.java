package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.Grant;

import java.util.List;

/** The grants of one repo (by its current GUID) on one machine. */
public record RepoGrants(String machine, String repoName, String repoGuid, List<Grant> grants) {
}
