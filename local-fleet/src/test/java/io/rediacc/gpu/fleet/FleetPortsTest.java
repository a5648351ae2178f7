package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet's ports come from below the ephemeral range (where no outgoing connection takes a port while a service
 * restarts), never twice in one JVM, and never one something listens on.
 */
class FleetPortsTest {

    @Test
    void picksAreBelowTheEphemeralRangeDistinctAndBindable() {
        int floor = FleetPorts.ephemeralFloor();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = FleetPorts.pick();
            assertThat(port).isBetween(FleetPorts.LOWEST, floor - 1);
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
        int last = FleetPorts.pick();
        assertThat(FleetPorts.bindable(last)).isTrue();
    }

    @Test
    void aPortSomethingListensOnIsNotBindable() throws Exception {
        try (ServerSocket listener = new ServerSocket()) {
            listener.bind(new InetSocketAddress("127.0.0.1", FleetPorts.pick()));
            assertThat(FleetPorts.bindable(listener.getLocalPort())).isFalse();
        }
    }

    @Test
    void theLocalFleetKeepsItsRecordedPortWhileItIsFree(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ports.properties");
        int first = new FleetPorts(file).port("grant-service");
        assertThat(new FleetPorts(file).port("grant-service")).isEqualTo(first);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", first));
            int moved = new FleetPorts(file).port("grant-service");
            assertThat(moved).isNotEqualTo(first).isLessThan(FleetPorts.ephemeralFloor());
        }
    }
}
