package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.contracts.manifest.InvalidManifestException;
import io.rediacc.gpu.contracts.manifest.ManifestLoader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A repo's Docker daemon as the repos manifest describes it for machine setup:
 * <pre>
 *   - name: web
 *     daemon: unix:///run/rediacc/docker-1.sock           # the socket the gate forwards to (used as is)
 *     daemonConfig: /mnt/rediacc/mounts/GUID/.rediacc/docker/config/daemon.json   # host path
 *     daemonRun: /mnt/rediacc/mounts/GUID/.rediacc/docker/run  # optional: the daemon's own /run (host path)
 *     daemonService: rediacc-docker-1.service              # optional: systemd unit restarted after a change
 * </pre>
 * A repo without {@code daemonConfig} is not configured by setup (its daemon is someone else's). The manifest is
 * read by contracts' {@code ManifestLoader}, which checks these keys (absolute paths, a unit name) with the rest.
 */
public record RepoDaemon(String repo, String daemon, String daemonConfig, String daemonRun, String daemonService) {

    /** The manifest's repos that name a daemon config, in manifest order; a malformed manifest yields its problem. */
    public record Listing(List<RepoDaemon> daemons, List<String> problems) {
    }

    public static Listing read(Path manifest) {
        if (!Files.exists(manifest)) {
            return new Listing(List.of(), List.of());
        }
        try {
            // the gate's own reader: a manifest the gate would refuse configures no daemon either
            return new Listing(ManifestLoader.load(manifest, () -> null).repos().stream()
                    .filter(r -> r.daemonSetup().configured())
                    .map(r -> new RepoDaemon(r.name(), r.daemon().toString(), r.daemonSetup().config(),
                            r.daemonSetup().run(), r.daemonSetup().service()))
                    .toList(), List.of());
        } catch (InvalidManifestException e) {
            return new Listing(List.of(), List.of(e.getMessage()));
        }
    }
}
