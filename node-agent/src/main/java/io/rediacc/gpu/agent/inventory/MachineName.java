package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.identity.Identifiers;

import java.net.InetAddress;
import java.util.Optional;

/**
 * The machine's name, in one order for setup and the long-running mode: {@code --machine} or
 * {@code agent.machine}; else the repos manifest's {@code machine} (so agent and gate agree from
 * one file); else the host name ({@code <root>/etc/hostname}, then the OS's).
 */
public final class MachineName {

    private MachineName() {
    }

    /** @throws io.rediacc.gpu.contracts.identity.InvalidIdentifierException when the configured name is invalid */
    public static String resolve(Optional<String> configured, Optional<String> fromManifest, HostRoot host) {
        if (configured.isPresent() && !configured.get().isBlank()) {
            return Identifiers.machine(configured.get().trim());
        }
        if (fromManifest.isPresent()) {
            return fromManifest.get();
        }
        Optional<String> etc = host.readTrimmed("/etc/hostname").map(s -> s.lines().findFirst().orElse("").trim());
        // host names are case-insensitive and machine names lower case (contracts Identifiers): GPU-HOST is gpu-host
        String name = etc.filter(s -> !s.isEmpty()).orElseGet(MachineName::osHostName).toLowerCase(java.util.Locale.ROOT);
        if (!Identifiers.isMachine(name) && name.contains(".")) {
            name = name.substring(0, name.indexOf('.')); // an over-long FQDN: its host label
        }
        return Identifiers.machine(name);
    }

    private static String osHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
        }
    }
}
