package io.rediacc.gpu.grants.service;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.repository.OutboxSignal;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Revokes grants whose expiry passed. It looks when the next expiry is due, not on a fixed beat: each look
 * revokes what is due and reads when the next grant expires, and the next look is set for then (at most
 * {@code grants.expiry-interval} away, so a wall-clock step is caught within it). With no grant that
 * expires it sets none: an idle service reads nothing for expiry. A change committed on any replica (this
 * one's commits and the others', announced through the outbox's NOTIFY: {@link OutboxSignal}) may have
 * brought the next expiry forward, so it makes the reaper look again, the changes of one second
 * ({@link #CHANGES_FOLDED}) folded into one look.
 * <p>
 * Every replica looks; each due grant is revoked in a transaction of its own under its machine's lock, and
 * one that another replica revoked first (or that was granted again with a later expiry) is left alone, so
 * replicas may race here safely.
 */
@ApplicationScoped
public class ExpiryReaper {

    private static final Logger LOG = Logger.getLogger(ExpiryReaper.class);
    /** The changes committed within this much time cost one look between them. */
    static final Duration CHANGES_FOLDED = Duration.ofSeconds(1);
    /** The earliest expiries, one more than a pass revokes: the first not yet due says when to look next. */
    private static final String EARLIEST = """
            select machine, repo_guid, device, expires_at from grants
            where expires_at is not null order by expires_at limit $1""";

    private final Pool pool;
    private final Vertx vertx;
    private final GrantService grants;
    private final GrantsConfig config;
    private final Clock clock;
    private final OutboxSignal changes;
    private boolean running;
    private boolean busy;
    private boolean again;
    private long timer = -1;
    /** When the set look fires ({@link System#nanoTime()}), while {@code timer} is set. */
    private long timerAt;
    private long looks;

    public ExpiryReaper(Pool pool, Vertx vertx, GrantService grants, GrantsConfig config, Clock clock,
                        OutboxSignal changes) {
        this.clock = clock;
        this.pool = pool;
        this.vertx = vertx;
        this.grants = grants;
        this.config = config;
        this.changes = changes;
    }

    /** Refuses to start with settings that would make it look without pause (or never revoke anything). */
    void onStart(@Observes StartupEvent event) {
        List<String> problems = problems(config.expiryInterval(), config.expiryBatch());
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
        synchronized (this) {
            running = true;
        }
        changes.alsoTell(this::changed);
        lookIn(Duration.ZERO); // what expired while no replica ran
    }

    synchronized void onStop(@Observes ShutdownEvent event) {
        running = false;
        cancelTimer();
    }

    /** How many times this replica has looked for due grants since it started (a look is one statement). */
    public synchronized long looks() {
        return looks;
    }

    /** Whether a look is set or under way; none is while no grant expires and nothing changed since the last. */
    public synchronized boolean lookSet() {
        return timer >= 0 || busy;
    }

    /** A change was committed somewhere: look again soon, unless a look is set sooner. */
    private void changed() {
        lookIn(folded());
    }

    /** The wait that folds the changes of a moment into one look (never beyond the longest wait). */
    private Duration folded() {
        return CHANGES_FOLDED.compareTo(config.expiryInterval()) < 0 ? CHANGES_FOLDED : config.expiryInterval();
    }

    /**
     * Sets a look {@code delay} from now, unless one is set sooner; during a look, asks for one more after
     * it (that look read before this call).
     */
    private synchronized void lookIn(Duration delay) {
        if (!running) {
            return;
        }
        if (busy) {
            again = true;
            return;
        }
        long at = System.nanoTime() + delay.toNanos();
        if (timer >= 0) {
            if (timerAt - at <= 0) {
                return; // the look set already comes first
            }
            cancelTimer();
        }
        timerAt = at;
        timer = vertx.setTimer(Math.max(1, delay.toMillis()), id -> look());
    }

    private void look() {
        synchronized (this) {
            timer = -1;
            if (!running || busy) {
                return;
            }
            busy = true;
            looks++;
        }
        reap().subscribe().with(this::looked, e -> {
            LOG.warnf("expiry pass failed (%s); the next one retries", e.getMessage());
            looked(new Pass(0, Optional.of(clock.instant().plus(config.expiryInterval()))));
        });
    }

    private void looked(Pass pass) {
        boolean lookAgain;
        synchronized (this) {
            busy = false;
            lookAgain = again;
            again = false;
        }
        Optional<Duration> next = nextLook(clock.instant(), pass.nextDue(), config.expiryInterval());
        if (lookAgain) { // changes came during the look: one more within the folding wait
            next = Optional.of(next.filter(d -> d.compareTo(folded()) < 0).orElse(folded()));
        }
        next.ifPresent(this::lookIn);
    }

    /** What is wrong with the reaper's settings; empty when nothing is. */
    static List<String> problems(Duration longestWait, int batch) {
        List<String> problems = new ArrayList<>();
        if (longestWait.isNegative() || longestWait.isZero()) {
            problems.add("grants.expiry-interval must be positive (is " + longestWait + "), e.g. 60s");
        }
        if (batch < 1) {
            problems.add("grants.expiry-batch must be at least 1 (is " + batch + ")");
        }
        return problems;
    }

    /**
     * How long to wait before the next look: until {@code nextDue}, but at most {@code longest}; none when
     * no grant expires.
     */
    static Optional<Duration> nextLook(Instant now, Optional<Instant> nextDue, Duration longest) {
        return nextDue.map(due -> {
            Duration until = Duration.between(now, due);
            if (until.isNegative()) {
                return Duration.ZERO;
            }
            // +1 ms: a timer fires on whole milliseconds, and a look a little early finds nothing due yet
            Duration wait = until.plusMillis(1);
            return wait.compareTo(longest) > 0 ? longest : wait;
        });
    }

    /**
     * One pass's outcome.
     *
     * @param expired grants revoked in it
     * @param nextDue when the next grant expires (now, when more were due than one pass revokes); empty when
     *                none expires
     */
    public record Pass(int expired, Optional<Instant> nextDue) {
    }

    /** One pass: revokes what is due now, one grant per transaction, and says when the next one is due. */
    public Uni<Pass> reap() {
        Instant now = clock.instant();
        int batch = config.expiryBatch();
        return pool.preparedQuery(EARLIEST).execute(Tuple.of(batch + 1))
                .chain(rows -> {
                    List<Row> due = new ArrayList<>();
                    Optional<Instant> next = Optional.empty();
                    for (Row r : rows) {
                        Instant at = r.getOffsetDateTime("expires_at").toInstant();
                        if (at.isAfter(now)) {
                            next = Optional.of(at);
                            break;
                        }
                        if (due.size() == batch) {
                            next = Optional.of(now); // more are due than one pass revokes: go on at once
                            break;
                        }
                        due.add(r);
                    }
                    Optional<Instant> nextDue = next;
                    return Multi.createFrom().iterable(due)
                            .onItem().transformToUniAndConcatenate(r -> grants.expire(r.getString("machine"),
                                            r.getString("repo_guid"), r.getString("device"))
                                    .onFailure().recoverWithItem(e -> {
                                        LOG.warnf("grant %s of %s on %s not expired yet (%s)", r.getString("device"),
                                                r.getString("repo_guid"), r.getString("machine"), e.getMessage());
                                        return false;
                                    }))
                            .filter(Boolean::booleanValue)
                            .collect().asList()
                            .map(expired -> new Pass(expired.size(), expired.size() == due.size() ? nextDue
                                    // one not revoked (its machine's lock was busy, or it was granted again):
                                    // looked at again within the longest wait
                                    : earlier(nextDue, now.plus(config.expiryInterval()))));
                });
    }

    private void cancelTimer() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    private static Optional<Instant> earlier(Optional<Instant> due, Instant at) {
        return Optional.of(due.filter(d -> d.isBefore(at)).orElse(at));
    }
}
