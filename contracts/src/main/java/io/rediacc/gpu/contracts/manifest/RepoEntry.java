package io.rediacc.gpu.contracts.manifest;

import io.rediacc.gpu.contracts.events.RepoInfo;

/**
 * One repo of the manifest: its identity, the socket the gate listens on for it, the socket of the
 * repo's own Docker daemon, what it may reach on the host, and how machine setup configures its daemon.
 *
 * @param forkOf GUID of the repo this one was forked from; informational, never a source of grants
 * @param buildkitDeviceEntitlementDisabled true when the repo daemon's BuildKit cannot grant devices,
 *        so BuildKit sessions may pass
 * @param listenMode  permission bits for a unix listen socket (e.g. {@code 0660}), or null to keep the umask's
 * @param listenGroup group that owns a unix listen socket (the repo's users), or null to keep the gate's
 * @param host        what the repo may reach on the host: host path roots, extra drivers, its daemon's protected directories
 * @param daemonSetup where machine setup finds the repo daemon's configuration (not the gate's business)
 */
public record RepoEntry(String name, String guid, String forkOf, SocketEndpoint listen, SocketEndpoint daemon,
                        boolean buildkitDeviceEntitlementDisabled, Integer listenMode, String listenGroup,
                        RepoHostAccess host, DaemonSetup daemonSetup) {

    public RepoEntry {
        host = host == null ? RepoHostAccess.NONE : host;
        daemonSetup = daemonSetup == null ? DaemonSetup.NONE : daemonSetup;
    }

    public RepoInfo info() {
        return new RepoInfo(name, guid, forkOf);
    }
}
