package io.rediacc.gpu.cli.ssh;

import io.rediacc.gpu.cli.failure.Failure;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a machine's SSH server is and how rdc logs in: {@code user@addr[:port]}, an optional key
 * file, and an optional known_hosts file (else OpenSSH's own: {@code ~/.ssh/known_hosts},
 * {@code /etc/ssh/ssh_known_hosts}).
 */
public record SshTarget(String user, String host, int port, Path identity, Path knownHosts) {

    // user: POSIX-ish login names; host: a DNS name, IPv4, or [IPv6]
    private static final Pattern ADDRESS = Pattern.compile(
            "(?:([a-z_][a-z0-9_.-]{0,31})@)?(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9][A-Za-z0-9.-]{0,252})(?::(\\d{1,5}))?");

    public static SshTarget parse(String address, Path identity, Path knownHosts) {
        Matcher m = address == null ? null : ADDRESS.matcher(address.strip());
        if (m == null || !m.matches()) {
            throw Failure.usage("SSH address \"" + address + "\" is invalid: expected user@host[:port], e.g. root@gpu-host-1:22");
        }
        int port = m.group(3) == null ? 22 : Integer.parseInt(m.group(3));
        if (port < 1 || port > 65535) {
            throw Failure.usage("SSH address \"" + address + "\": port " + port + " is out of range");
        }
        String host = m.group(2);
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        return new SshTarget(m.group(1) == null ? "root" : m.group(1), host, port, identity, knownHosts);
    }

    /** The machine runs setup as root: through {@code sudo -n} when logging in as someone else. */
    public boolean needsSudo() {
        return !user.equals("root");
    }

    /** How ssh names this host in known_hosts: {@code host} on port 22, else {@code [host]:port}. */
    public String knownHostsName() {
        return port == 22 ? host : "[" + host + "]:" + port;
    }

    @Override
    public String toString() {
        return user + "@" + (host.contains(":") ? "[" + host + "]" : host) + (port == 22 ? "" : ":" + port);
    }
}
