package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.grants.repository.HeldGrant;

import java.util.List;

/**
 * The grants of one repo on one machine: by its current GUID, or, when the repo is gone from the
 * machine's inventory ({@code repoGone}), by the last GUID that held grants under its name.
 */
public record RepoGrants(String machine, String repoName, String repoGuid, boolean repoGone, List<HeldGrant> grants) {
}
