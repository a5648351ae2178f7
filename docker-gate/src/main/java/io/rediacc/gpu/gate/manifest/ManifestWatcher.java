package io.rediacc.gpu.gate.manifest;

import io.rediacc.gpu.contracts.manifest.InvalidManifestException;
import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Re-reads the manifest when its content changes. Polls a digest rather than relying on
 * inotify: config-management tools replace files through renames and symlink swaps, which a
 * content digest sees no matter how the file was replaced. An invalid new version is logged and
 * the previous one stays in force.
 */
public final class ManifestWatcher implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ManifestWatcher.class);

    private final Path file;
    private final Consumer<ReposManifest> onChange;
    private final ScheduledExecutorService timer;
    private byte[] lastDigest;
    private final AtomicLong versionsRefused = new AtomicLong();

    public ManifestWatcher(Path file, byte[] initialDigest, Duration interval, Consumer<ReposManifest> onChange) {
        this.file = file;
        this.onChange = onChange;
        this.lastDigest = initialDigest;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gate-manifest-watcher");
            t.setDaemon(true);
            return t;
        });
        long ms = Math.max(100, interval.toMillis());
        timer.scheduleWithFixedDelay(this::check, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Digest of the file as it is now, or null when it cannot be read. */
    public static byte[] digest(Path file) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void check() {
        byte[] now = digest(file);
        if (now == null || Arrays.equals(now, lastDigest)) {
            return;
        }
        lastDigest = now;
        try {
            ReposManifest manifest = ManifestLoader.load(file);
            LOG.infof("repos manifest %s changed: %d repo(s)", file, manifest.repos().size());
            onChange.accept(manifest);
        } catch (InvalidManifestException e) {
            versionsRefused.incrementAndGet();
            LOG.errorf("ignoring the changed repos manifest, the previous one stays in force: %s", e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("applying the changed repos manifest failed", e);
        }
    }

    /** Changed versions read and refused as invalid so far: a test knows the watcher saw one without sleeping. */
    public long versionsRefused() {
        return versionsRefused.get();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
