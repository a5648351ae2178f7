package io.rediacc.gpu.gate.proxy;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Open connections and held bytes of unfinished requests: of one repo, or of the whole gate. */
final class Budget {

    final int maxConnections;
    final long maxPending;
    final AtomicInteger connections = new AtomicInteger();
    final AtomicLong pending = new AtomicLong();

    Budget(int maxConnections, long maxPending) {
        this.maxConnections = maxConnections;
        this.maxPending = maxPending;
    }

    boolean tryOpen() {
        while (true) {
            int now = connections.get();
            if (now >= maxConnections) {
                return false;
            }
            if (connections.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    void closed() {
        connections.decrementAndGet();
    }

    boolean tryHold(long bytes) {
        while (true) {
            long now = pending.get();
            if (now + bytes > maxPending) {
                return false;
            }
            if (pending.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        pending.addAndGet(-bytes);
    }
}
