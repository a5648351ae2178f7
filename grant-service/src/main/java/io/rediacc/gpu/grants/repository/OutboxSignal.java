package io.rediacc.gpu.grants.repository;

import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The relay's doorbell: a commit that wrote outbox rows rings it, so publication follows the commit
 * at once instead of after a polling interval. Rings while the relay is busy collapse into one.
 */
@ApplicationScoped
public class OutboxSignal {

    private final Semaphore bell = new Semaphore(0);

    /** Called after a transaction that wrote outbox rows has committed. */
    public void committed() {
        if (bell.availablePermits() == 0) {
            bell.release();
        }
    }

    /** Waits until rung or until {@code timeout} passes; true when rung. */
    public boolean await(Duration timeout) throws InterruptedException {
        boolean rung = bell.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
        bell.drainPermits();
        return rung;
    }
}
