package io.rediacc.gpu.gate.policy;

import java.util.List;

/**
 * A host path no repo may reach through a bind, a volume or a mount source: neither the path, nor
 * anything under it, nor any directory above it (which contains it). {@code why} completes the
 * refusal ("it reaches /run/docker.sock, {@code why}").
 */
public record ProtectedPath(String path, String why) {

    /** Refused on every machine, whatever the manifest says. */
    public static final List<ProtectedPath> BUILT_IN = List.of(
            new ProtectedPath("/dev", "the host's device nodes"),
            new ProtectedPath("/proc", "the host's processes"),
            new ProtectedPath("/sys", "the host's device registers"),
            new ProtectedPath("/run/docker.sock", "the host's Docker daemon socket"),
            new ProtectedPath("/run/docker", "the host daemon's runtime directory (its containerd socket, legacy plugin sockets in /run/docker/plugins)"),
            new ProtectedPath("/run/containerd", "containerd's sockets"),
            new ProtectedPath("/var/lib/docker", "the host daemon's data root"),
            new ProtectedPath("/var/lib/containerd", "containerd's data root"),
            new ProtectedPath("/etc/cdi", "the CDI specs (a spec can add host mounts and hooks that run as root)"),
            new ProtectedPath("/run/cdi", "the CDI specs (a spec can add host mounts and hooks that run as root)"),
            new ProtectedPath("/etc/rediacc", "the machine's Rediacc configuration, the repos manifest included"),
            new ProtectedPath("/etc/docker", "the daemons' configuration and legacy plugin specs"),
            new ProtectedPath("/usr/lib/docker/plugins", "legacy plugin specs"));

    public ProtectedPath {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("a protected path must be absolute: " + path);
        }
        path = HostPathRules.normalize(path);
        if (path.equals("/")) {
            throw new IllegalArgumentException("/ cannot be a protected path: it would refuse every bind");
        }
    }
}
