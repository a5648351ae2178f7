package io.rediacc.gpu.gate.support;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.awaitility.Awaitility.await;

/** Polls a condition with Awaitility: the gate applies grants asynchronously. */
public final class Await {

    private Await() {
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        await(what).atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .until(condition::getAsBoolean);
    }
}
