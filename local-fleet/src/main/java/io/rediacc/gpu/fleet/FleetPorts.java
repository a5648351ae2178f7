package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The local fleet's ports: chosen free on the first run and kept in {@code .fleet/ports.properties}
 * so a second run reuses the same addresses (and a stale {@code fleet.env} stays right).
 */
final class FleetPorts {

    private final Path file;
    private final Properties ports = new Properties();

    FleetPorts(Path file) throws IOException {
        this.file = file;
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file)) {
                ports.load(r);
            }
        }
    }

    /** The port for {@code name}: the recorded one when it is free again, else a new free one. */
    int port(String name) throws IOException {
        String recorded = ports.getProperty(name);
        if (recorded != null && free(Integer.parseInt(recorded))) {
            return Integer.parseInt(recorded);
        }
        int port = pick();
        ports.setProperty(name, Integer.toString(port));
        try (Writer w = Files.newBufferedWriter(file)) {
            ports.store(w, "ports of the local fleet; delete to pick new ones");
        }
        return port;
    }

    private static int pick() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
