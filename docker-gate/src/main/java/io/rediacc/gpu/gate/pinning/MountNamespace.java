package io.rediacc.gpu.gate.pinning;

import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether the gate's pins are visible to the Docker daemons: they are when the gate shares their
 * mount namespace. systemd's PrivateTmp=, ProtectSystem=, PrivateMounts= and the like give a unit
 * a namespace of its own, whose new mounts do not reach the host.
 */
public final class MountNamespace {

    private static final Logger LOG = Logger.getLogger(MountNamespace.class);

    private MountNamespace() {
    }

    /** The mount namespace of process {@code pid} ({@code mnt:[4026531841]}), empty when unreadable. */
    public static Optional<String> of(String pid) {
        try {
            return Optional.of(Files.readSymbolicLink(Path.of("/proc", pid, "ns", "mnt")).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** Logs an error when the gate's mount namespace is not PID 1's (where systemd starts the daemons). */
    public static void warnIfNotHost() {
        Optional<String> self = of("self");
        Optional<String> init = of("1");
        if (self.isPresent() && init.isPresent() && !self.equals(init)) {
            LOG.errorf("the gate runs in mount namespace %s, not the host's (%s): Docker daemons in the host's namespace"
                    + " cannot see its pinned bind sources, and containers with binds will fail to start. Run it without"
                    + " PrivateTmp=, ProtectSystem=, PrivateMounts= and other namespacing options (deploy/systemd)",
                    self.get(), init.get());
        }
    }
}
