package io.rediacc.gpu.gate.manifest;

import io.rediacc.gpu.contracts.events.RepoInfo;

/**
 * One repo the gate serves: its identity, the socket the gate listens on for it and the socket of
 * the repo's own Docker daemon.
 *
 * @param forkOf GUID of the repo this one was forked from; informational, never a source of grants
 * @param buildkitDeviceEntitlementDisabled true when the repo daemon's BuildKit cannot grant devices,
 *        so BuildKit sessions may pass
 * @param listenMode  permission bits for a unix listen socket (e.g. {@code 0660}), or null to keep the umask's
 * @param listenGroup group that owns a unix listen socket (the repo's users), or null to keep the gate's
 * @param host        what the repo may reach on the host: host path roots, extra drivers, its daemon's protected directories
 */
public record RepoEntry(String name, String guid, String forkOf, SocketEndpoint listen, SocketEndpoint daemon,
                        boolean buildkitDeviceEntitlementDisabled, Integer listenMode, String listenGroup,
                        RepoHostAccess host) {

    public RepoEntry {
        host = host == null ? RepoHostAccess.NONE : host;
    }

    public RepoEntry(String name, String guid, String forkOf, SocketEndpoint listen, SocketEndpoint daemon,
                     boolean buildkitDeviceEntitlementDisabled, Integer listenMode, String listenGroup) {
        this(name, guid, forkOf, listen, daemon, buildkitDeviceEntitlementDisabled, listenMode, listenGroup, RepoHostAccess.NONE);
    }

    public RepoEntry(String name, String guid, String forkOf, SocketEndpoint listen, SocketEndpoint daemon,
                     boolean buildkitDeviceEntitlementDisabled) {
        this(name, guid, forkOf, listen, daemon, buildkitDeviceEntitlementDisabled, null, null);
    }

    public RepoInfo info() {
        return new RepoInfo(name, guid, forkOf);
    }
}
