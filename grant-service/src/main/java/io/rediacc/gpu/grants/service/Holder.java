package io.rediacc.gpu.grants.service;

/** A repo that holds a device name, as a conflict names it. */
public record Holder(String repo, String repoGuid, String device, boolean exclusive) {
}
