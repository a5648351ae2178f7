package io.rediacc.gpu.gate.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition: the gate applies grants asynchronously. */
public final class Await {

    private Await() {
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
    }
}
