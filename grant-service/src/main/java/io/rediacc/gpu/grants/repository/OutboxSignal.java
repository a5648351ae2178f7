package io.rediacc.gpu.grants.repository;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The relay's doorbell: a commit that wrote outbox rows rings it, so publication follows the commit
 * at once instead of after a polling interval. Rings while the relay is busy collapse into one.
 * A commit of this replica also tells the other replicas' relays, through the announcer that
 * {@code OutboxWakeups} installs (a NOTIFY after the commit, never inside the change's transaction).
 * Every ring means "a change may have been committed", here or on another replica, so whoever else must
 * hear of changes listens here too ({@link #alsoTell}) instead of polling.
 */
@ApplicationScoped
public class OutboxSignal {

    private final Semaphore bell = new Semaphore(0);
    private volatile Runnable announcer = () -> { };
    private final List<Runnable> alsoTold = new CopyOnWriteArrayList<>();

    /** Called after a transaction of this replica that wrote outbox rows has committed: this relay and the others'. */
    public void committed() {
        ring();
        announcer.run();
    }

    /** Rings this replica's relay only: another replica's commit was announced, or a look for missed ones. */
    public void ring() {
        if (bell.availablePermits() == 0) {
            bell.release();
        }
        alsoTold.forEach(Runnable::run);
    }

    /**
     * Who else hears every ring: a change committed here or on another replica (the expiry reaper, whose
     * next expiry it may bring forward). It runs on the ringing thread, often an event loop: it must not block.
     */
    public void alsoTell(Runnable listener) {
        alsoTold.add(listener);
    }

    /** Who tells the other replicas of this replica's commits (it must not block: it runs on the committing thread). */
    public void announceWith(Runnable announcer) {
        this.announcer = announcer;
    }

    /** Waits until rung or until {@code timeout} passes; true when rung. */
    public boolean await(Duration timeout) throws InterruptedException {
        boolean rung = bell.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
        bell.drainPermits();
        return rung;
    }
}
