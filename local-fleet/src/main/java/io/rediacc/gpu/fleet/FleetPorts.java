package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The fleet's ports: {@link #pick()} hands out every port the fleet (and its tests) listen on; an instance keeps
 * the local fleet's ports in {@code .fleet/ports.properties}, so that a second run reuses the same addresses (and a
 * stale {@code fleet.env} stays right).
 *
 * <p>Ports come from below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}), never from it:
 * a port the kernel chose ({@code new ServerSocket(0)}) is one it also gives to outgoing connections, so once
 * the service on it stops (a restart, or between the pick and the bind) any process's next connection can take
 * it as its local port, and the service cannot bind it again (CI failed so: a test JVM beside
 * RemovedMachineKafkaUserIT took its inventory-service's port while the service restarted). Below that range only
 * a listener takes a port, and a listener there is one that chose it on purpose.
 */
final class FleetPorts {

    /** The lowest port handed out: above the well-known and most registered services' ports. */
    static final int LOWEST = 10_000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default floor of the ephemeral range, where the file cannot be read. */
    private static final int DEFAULT_EPHEMERAL_FLOOR = 32_768;
    /** Every port handed out in this JVM: never twice, so two services of one test never race for a port. */
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

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

    /** The port for {@code name}: the recorded one when it is free again, else a new one ({@link #pick()}). */
    int port(String name) throws IOException {
        String recorded = ports.getProperty(name);
        if (recorded != null && bindable(Integer.parseInt(recorded))) {
            return Integer.parseInt(recorded);
        }
        int port = pick();
        ports.setProperty(name, Integer.toString(port));
        try (Writer w = Files.newBufferedWriter(file)) {
            ports.store(w, "ports of the local fleet; delete to pick new ones");
        }
        return port;
    }

    /**
     * A port nothing listens on, below the ephemeral range, never handed out before in this JVM. Random within the
     * range, so that test JVMs side by side rarely try the same one; a port something listens on is skipped.
     * A service keeps its port across its own restarts only where the restart must find it at the same address
     * (a broker whose clients keep its bootstrap address, a database whose clients keep their URL): the range makes
     * that safe, as no outgoing connection takes a port there meanwhile.
     */
    static int pick() {
        int floor = ephemeralFloor();
        int span = floor - LOWEST;
        if (span <= 0) {
            throw new FleetException("no ports below the ephemeral range (" + EPHEMERAL_RANGE + " starts at " + floor
                    + "); the fleet picks its ports from " + LOWEST + " up to there");
        }
        synchronized (HANDED_OUT) {
            for (int attempt = 0; attempt < 1000; attempt++) {
                int port = LOWEST + ThreadLocalRandom.current().nextInt(span);
                if (!HANDED_OUT.contains(port) && bindable(port)) {
                    HANDED_OUT.add(port);
                    return port;
                }
            }
        }
        throw new FleetException("no free port found between " + LOWEST + " and " + floor + " in 1000 tries");
    }

    /** The first port of the kernel's ephemeral range (what it picks outgoing connections' local ports from). */
    static int ephemeralFloor() {
        try {
            // readAllLines, not readString: /proc reports a size of 0 and readString returned one byte of it ("3")
            String[] range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_FLOOR;
        }
    }

    /**
     * Whether a listener can bind {@code port} on every address now (the wildcard address: a service listening on
     * 0.0.0.0 or on 127.0.0.1 both block it). SO_REUSEADDR as the services set it: a closed connection's TIME_WAIT
     * does not keep them from listening.
     */
    static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
