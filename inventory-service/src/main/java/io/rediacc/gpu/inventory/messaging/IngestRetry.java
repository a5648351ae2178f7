package io.rediacc.gpu.inventory.messaging;

import io.smallrye.mutiny.Uni;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * How long a record is retried when the database fails. Bounded on purpose: machines and gates
 * re-publish on every heartbeat, so a record given up during a long outage is replaced by the
 * next one, while an unbounded retry would stall the partition behind it.
 */
final class IngestRetry {

    static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    static final int ATTEMPTS = 6;

    private IngestRetry() {
    }

    static <T> Uni<T> withRetry(Supplier<Uni<? extends T>> attempt) {
        return Uni.createFrom().<T>deferred(attempt)
                .onFailure(e -> !(e instanceof RejectedRecordException))
                .retry().withBackOff(FIRST_BACKOFF, MAX_BACKOFF).atMost(ATTEMPTS);
    }
}
