package io.rediacc.gpu.inventory.support;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.time.Instant;
import java.util.Map;

/**
 * Publishes an inventory before the application starts, so a test can show that a fresh
 * instance rebuilds its read model from what the compacted topic already holds.
 */
public class TopicHistoryBeforeStart implements QuarkusTestResourceLifecycleManager {

    /** The machine whose inventory was on the topic before the service existed. */
    public static final String MACHINE = Inventories.uniqueMachine("before-start");

    @Override
    public Map<String, String> start() {
        TestKeys.registerBeforeStart(MACHINE); // as an operator did when the machine was set up
        FleetTopics.inventory(Inventories.nvidiaHost(MACHINE, Instant.now()));
        return Map.of();
    }

    @Override
    public void stop() {
        // records stay on the broker, like on a real topic
    }
}
