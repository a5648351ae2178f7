package io.rediacc.gpu.agent.publish;

import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.inventory.InventoryAssembler;
import io.rediacc.gpu.contracts.events.MachineInventory;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The long-running mode on one machine: publishes the inventory at start, after every change to
 * {@code /etc/cdi}, {@code inventory.json} or the repos manifest (debounced), and on a heartbeat.
 * Assembly runs on one thread, so a heartbeat and a change never build two states at once.
 */
public final class RunningAgent implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RunningAgent.class);

    private final AgentSettings settings;
    private final InventoryAssembler assembler;
    private final InventoryPublisher publisher;
    private final Duration debounce;
    private final ScheduledExecutorService scheduler;
    private final ChangeWatcher watcher;
    private ScheduledFuture<?> pendingChange; // guarded by this
    private volatile MachineInventory lastAssembled;

    RunningAgent(AgentSettings settings, InventoryAssembler assembler, InventoryPublisher publisher, Duration heartbeat,
                 Duration debounce) throws IOException {
        this.settings = settings;
        this.assembler = assembler;
        this.publisher = publisher;
        this.debounce = debounce;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "inventory-assembler");
            t.setDaemon(true);
            return t;
        });
        HostRoot host = settings.host();
        // Our own directories: create them so they can be watched before setup first writes there.
        Files.createDirectories(host.path(HostRoot.CDI_DIR));
        Files.createDirectories(host.path(HostRoot.INVENTORY).getParent());
        this.watcher = new ChangeWatcher(this::changed);
        watchAll();
        watcher.start();
        scheduler.execute(this::publishNow);
        scheduler.scheduleAtFixedRate(() -> {
            watchAll(); // the manifest's directory may have appeared since
            publishNow();
        }, heartbeat.toMillis(), heartbeat.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void watchAll() {
        HostRoot host = settings.host();
        watcher.watch(host.path(HostRoot.CDI_DIR), RunningAgent::isSpecName);
        Path inventory = host.path(HostRoot.INVENTORY);
        watcher.watch(inventory.getParent(), inventory.getFileName().toString()::equals);
        Path manifest = settings.reposManifest();
        watcher.watch(manifest.getParent(), manifest.getFileName().toString()::equals);
    }

    /** Spec files as the CDI loader counts them; temp files of atomic writers are not. */
    static boolean isSpecName(String name) {
        return name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json");
    }

    private synchronized void changed() {
        if (pendingChange != null) {
            pendingChange.cancel(false);
        }
        pendingChange = scheduler.schedule(this::publishNow, debounce.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void publishNow() {
        try {
            MachineInventory inventory = assembler.current(settings);
            lastAssembled = inventory;
            publisher.offer(inventory);
        } catch (RuntimeException e) {
            // e.g. an invalid machine name: keep running, the next change or heartbeat tries again
            LOG.errorf("cannot assemble the inventory: %s", e.getMessage());
        }
    }

    /** The state most recently handed to the publisher. */
    public MachineInventory lastAssembled() {
        return lastAssembled;
    }

    public long publishedCount() {
        return publisher.publishedCount();
    }

    /** Sends to Kafka that failed so far (retried with the latest state). */
    public long failedPublishCount() {
        return publisher.failedCount();
    }

    @Override
    public void close() {
        watcher.close();
        scheduler.shutdownNow();
        publisher.close();
    }
}
