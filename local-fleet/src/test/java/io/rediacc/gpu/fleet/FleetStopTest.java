package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet stops its children together, the broker last ({@link Fleet#stopInWaves}): one after another it took 45 s
 * (inventory-service alone 16 s), and a service that outlives the broker waits out its Kafka clients' close timeouts.
 */
class FleetStopTest {

    /** A child whose stop waits until every other non-broker child has begun stopping: one at a time, none would end. */
    static class Recording implements Child {
        final String name;
        final CountDownLatch allStopping;
        final ConcurrentLinkedQueue<String> events;
        volatile boolean sawEveryoneStopping;

        Recording(String name, CountDownLatch allStopping, ConcurrentLinkedQueue<String> events) {
            this.name = name;
            this.allStopping = allStopping;
            this.events = events;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public long pid() {
            return 0;
        }

        @Override
        public boolean alive() {
            return true;
        }

        @Override
        public Path log() {
            return Path.of("/dev/null");
        }

        @Override
        public String tail(int lines) {
            return "";
        }

        @Override
        public void stop(Duration grace) {
            events.add("stopping " + name);
            if (allStopping != null) {
                allStopping.countDown();
                try {
                    sawEveryoneStopping = allStopping.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            events.add("stopped " + name);
        }
    }

    @Test
    void everyChildButTheBrokerStopsAtOnceAndTheBrokerAfterThemAll() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        CountDownLatch allStopping = new CountDownLatch(4);
        Recording broker = new Recording("kafka", null, events);
        List<Recording> others = List.of(new Recording("grant-service", allStopping, events),
                new Recording("inventory-service", allStopping, events), new Recording("dockerd-gpu-a", allStopping, events),
                new Recording("docker-gate", allStopping, events));
        List<Child> children = List.of(broker, others.get(0), others.get(1), others.get(2), others.get(3));

        Fleet.stopInWaves(children, broker, Duration.ofSeconds(10));

        assertThat(others).allSatisfy(c -> assertThat(c.sawEveryoneStopping).as(c.name + " saw the others stopping").isTrue());
        List<String> order = List.copyOf(events);
        assertThat(order).hasSize(10).endsWith("stopping kafka", "stopped kafka");
        assertThat(order.subList(0, 8)).filteredOn(e -> e.startsWith("stopped ")).hasSize(4);
    }

    /** One child whose stop fails (a daemon's mount that will not go) is named; the others and the broker still stop. */
    @Test
    void aChildWhoseStopFailsKeepsNeitherTheOthersNorTheBrokerRunning() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        Recording broker = new Recording("kafka", null, events);
        Recording failing = new Recording("dockerd-gpu-a", null, events) {
            @Override
            public void stop(Duration grace) {
                events.add("stopping " + name);
                throw new IllegalStateException("cannot unmount data");
            }
        };
        Recording other = new Recording("docker-gate", null, events);
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.err;
        try {
            System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            Fleet.stopInWaves(List.of(broker, failing, other), broker, Duration.ofSeconds(10));
        } finally {
            System.setErr(original);
        }

        assertThat(events).contains("stopping dockerd-gpu-a", "stopped docker-gate").endsWith("stopping kafka", "stopped kafka");
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("fleet: stopping dockerd-gpu-a failed: cannot unmount data" + System.lineSeparator());
    }

    @Test
    void withoutABrokerEveryChildStillStops() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        CountDownLatch allStopping = new CountDownLatch(2);
        List<Child> children = List.of(new Recording("a", allStopping, events), new Recording("b", allStopping, events));

        Fleet.stopInWaves(children, null, Duration.ofSeconds(10));

        assertThat(events).containsExactlyInAnyOrder("stopping a", "stopping b", "stopped a", "stopped b");
    }
}
