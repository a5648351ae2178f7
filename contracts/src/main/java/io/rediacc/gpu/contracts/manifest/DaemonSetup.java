package io.rediacc.gpu.contracts.manifest;

/**
 * What {@code rdc machine setup} (node-agent {@code prepare}) needs to configure a repo's Docker daemon.
 * A repo without {@code daemonConfig} is not configured by setup: its daemon is someone else's.
 *
 * @param config  host path of the daemon's {@code daemon.json}, or null
 * @param run     host path of the daemon's own {@code /run}, or null
 * @param service systemd unit restarted after a change, or null
 */
public record DaemonSetup(String config, String run, String service) {

    public static final DaemonSetup NONE = new DaemonSetup(null, null, null);

    public boolean configured() {
        return config != null;
    }
}
