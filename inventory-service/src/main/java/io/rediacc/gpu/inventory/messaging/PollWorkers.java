package io.rediacc.gpu.inventory.messaging;

import io.smallrye.mutiny.Uni;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The CPU work of a poll — checking its records' signatures, decoding them — on threads of its own, a share of
 * the records on each, never on the event loop that delivered the poll. On the event loop it took ~0.1 ms per
 * record (an Ed25519 check alone), so a 500-record poll held that loop for 50 ms and more, while the
 * PostgreSQL connections it also drives — the other consumer's transaction among them — waited
 * (docs/BENCHMARKS-LOG.md, issue 34's ingest profile). One thread per core: the work is CPU only.
 */
@ApplicationScoped
public class PollWorkers {

    /** A poll this small is done where it arrived: a hop to the pool would cost more than it saves. */
    static final int INLINE_UP_TO = 4;
    /** The fewest records a thread is handed: below this, fewer threads share the poll. */
    private static final int MIN_SHARE = 16;

    private final int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    private final ExecutorService pool = Executors.newFixedThreadPool(threads, new Named());

    /**
     * {@code step} applied to every item, results in the items' order; {@code step} must not throw (a record's
     * failure is its result). Completes on one of the pool's threads (inline for a poll of {@value #INLINE_UP_TO}
     * or fewer).
     */
    public <T, R> Uni<List<R>> map(List<T> items, Function<T, R> step) {
        if (items.size() <= INLINE_UP_TO) {
            return Uni.createFrom().item(() -> apply(items, step));
        }
        return Uni.createFrom().completionStage(() -> {
            int shares = Math.min(threads, Math.max(1, items.size() / MIN_SHARE));
            int per = (items.size() + shares - 1) / shares;
            List<CompletableFuture<List<R>>> parts = new ArrayList<>(shares);
            for (int from = 0; from < items.size(); from += per) {
                List<T> share = items.subList(from, Math.min(items.size(), from + per));
                parts.add(CompletableFuture.supplyAsync(() -> apply(share, step), pool));
            }
            return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(done -> {
                List<R> all = new ArrayList<>(items.size());
                parts.forEach(p -> all.addAll(p.join()));
                return all;
            });
        });
    }

    /** {@code workers.map(items, step)}, or {@code step} applied where the items are when {@code workers} is null. */
    public static <T, R> Uni<List<R>> map(PollWorkers workers, List<T> items, Function<T, R> step) {
        return workers == null ? Uni.createFrom().item(() -> apply(items, step)) : workers.map(items, step);
    }

    private static <T, R> List<R> apply(List<T> items, Function<T, R> step) {
        List<R> out = new ArrayList<>(items.size());
        for (T item : items) {
            out.add(step.apply(item));
        }
        return out;
    }

    @PreDestroy
    void stop() {
        pool.shutdownNow();
    }

    private static final class Named implements java.util.concurrent.ThreadFactory {
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "poll-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    }
}
