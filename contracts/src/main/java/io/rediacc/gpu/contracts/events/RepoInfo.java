package io.rediacc.gpu.contracts.events;

/** A repo on a machine: its name, its GUID (its identity) and the GUID it was forked from, if any. */
public record RepoInfo(String name, String guid, String forkOf) {
}
