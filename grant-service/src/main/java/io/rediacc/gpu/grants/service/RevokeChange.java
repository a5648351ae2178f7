package io.rediacc.gpu.grants.service;

/** The result of a revoke once its transaction committed; {@code version} is the machine's new version. */
public record RevokeChange(String machine, String repoName, String repoGuid, String device, long version) {
}
