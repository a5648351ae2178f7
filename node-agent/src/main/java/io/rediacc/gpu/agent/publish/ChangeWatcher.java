package io.rediacc.gpu.agent.publish;

import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Watches a few directories for changes to the files that make up the inventory and calls back,
 * each time, with the directory that changed. Debouncing is the caller's business.
 */
public final class ChangeWatcher implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ChangeWatcher.class);

    private final WatchService service;
    private final Map<WatchKey, Path> dirs = new HashMap<>();
    private final Map<Path, Predicate<String>> filters = new HashMap<>();
    private final Runnable onChange;
    private final Thread thread;

    public ChangeWatcher(Runnable onChange) throws IOException {
        this.service = FileSystems.getDefault().newWatchService();
        this.onChange = onChange;
        this.thread = new Thread(this::loop, "inventory-watcher");
        this.thread.setDaemon(true);
    }

    /**
     * Watches {@code dir} for entries whose name passes {@code names}. Returns false when the
     * directory does not exist (yet); the caller may try again later.
     */
    public synchronized boolean watch(Path dir, Predicate<String> names) {
        if (filters.containsKey(dir)) {
            return true;
        }
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try {
            WatchKey key = dir.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                    StandardWatchEventKinds.ENTRY_MODIFY);
            dirs.put(key, dir);
            filters.put(dir, names);
            return true;
        } catch (IOException e) {
            LOG.warnf("cannot watch %s (%s); changes there are published with the next heartbeat", dir, e.getMessage());
            return false;
        }
    }

    public void start() {
        thread.start();
    }

    private void loop() {
        while (true) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            Path dir;
            Predicate<String> names;
            synchronized (this) {
                dir = dirs.get(key);
                names = dir == null ? null : filters.get(dir);
            }
            boolean relevant = false;
            for (WatchEvent<?> event : key.pollEvents()) {
                if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                    relevant = true; // events were lost: assume the worst
                } else if (names != null && names.test(((Path) event.context()).getFileName().toString())) {
                    relevant = true;
                }
            }
            if (!key.reset()) {
                synchronized (this) {
                    dirs.remove(key);
                    if (dir != null) {
                        filters.remove(dir); // the directory went away; watch() may add it again
                    }
                }
                relevant = true;
            }
            if (relevant) {
                try {
                    onChange.run();
                } catch (RuntimeException e) {
                    LOG.warn("inventory change handler failed", e);
                }
            }
        }
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        thread.interrupt();
    }
}
