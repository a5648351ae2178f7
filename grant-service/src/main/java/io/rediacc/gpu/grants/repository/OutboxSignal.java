package io.rediacc.gpu.grants.repository;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The relay's doorbell: a commit that wrote outbox rows rings it, so publication follows the commit
 * at once instead of after a polling interval. Rings while the relay is busy collapse into one.
 * A commit of this replica also tells the other replicas' relays, through the announcer that
 * {@code OutboxWakeups} installs (a NOTIFY after the commit, never inside the change's transaction).
 */
@ApplicationScoped
public class OutboxSignal {

    private final Semaphore bell = new Semaphore(0);
    private volatile Runnable announcer = () -> { };

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
