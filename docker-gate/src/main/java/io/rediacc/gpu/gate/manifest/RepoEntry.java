package io.rediacc.gpu.gate.manifest;

import io.rediacc.gpu.contracts.events.RepoInfo;

/**
 * One repo the gate serves: its identity, the socket the gate listens on for it and the socket of
 * the repo's own Docker daemon.
 *
 * @param forkOf GUID of the repo this one was forked from; informational, never a source of grants
 * @param buildkitDeviceEntitlementDisabled true when the repo daemon's BuildKit cannot grant devices,
 *        so BuildKit sessions may pass
 */
public record RepoEntry(String name, String guid, String forkOf, SocketEndpoint listen, SocketEndpoint daemon,
                        boolean buildkitDeviceEntitlementDisabled) {

    public RepoInfo info() {
        return new RepoInfo(name, guid, forkOf);
    }
}
