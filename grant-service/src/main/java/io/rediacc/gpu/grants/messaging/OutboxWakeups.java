package io.rediacc.gpu.grants.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.rediacc.gpu.grants.repository.OutboxSignal;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rings the relay's {@link OutboxSignal} when any replica commits outbox rows: one pooled connection
 * LISTENs on {@value #CHANNEL}. So an idle relay reads nothing until there is something to publish, and a
 * row another replica committed is published at once instead of at the next poll.
 * <p>
 * Who notifies: this service's own changes do not NOTIFY inside their transaction (they set
 * {@code grants.outbox_notify} so the outbox trigger of V4/V6 stays quiet); once one has committed, this
 * class sends the NOTIFY on its listening connection ({@link #announce}), at most one in flight, commits
 * meanwhile folded into one more, with {@code synchronous_commit} off. A NOTIFY inside a transaction takes
 * PostgreSQL's cluster-wide notify lock at commit and holds it until the commit is flushed: every grant's
 * commit waited for the previous one's WAL flush, one after another (docs/BENCHMARKS-LOG.md, issue 34).
 * Rows written by anything else (an older replica during an upgrade, by hand) still notify through the
 * trigger. This connection's own notifications are not a wake-up: its bell was rung at the commit.
 * <p>
 * When the connection drops (database restart, a killed backend) it is taken again with a backoff
 * (100 ms doubling to 5 s), and the bell rings once after each new LISTEN: a notification sent while
 * nobody listened is lost, so the relay looks once for what it may have missed. An announcement while no
 * connection listens is dropped: the other replicas' relays find the rows at their next poll.
 */
@ApplicationScoped
public class OutboxWakeups {

    /** The channel: the outbox trigger's {@code pg_notify} and this class's announcements. */
    static final String CHANNEL = "grants_outbox";
    /** The listening connection's application_name: which backend listens, in pg_stat_activity. */
    static final String LISTENER_NAME = "grant-service outbox listener";
    private static final Logger LOG = Logger.getLogger(OutboxWakeups.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final Pool pool;
    private final Vertx vertx;
    private final OutboxSignal signal;
    private final Counter notifications;
    private final Counter reconnects;
    private volatile boolean running;
    private volatile PgConnection listening;
    private volatile Duration backoff = FIRST_BACKOFF;
    private volatile int failedAttempts;
    /** Commits announced and not yet covered by a NOTIFY sent after them. */
    private final AtomicInteger unannounced = new AtomicInteger();

    public OutboxWakeups(Pool pool, Vertx vertx, OutboxSignal signal, MeterRegistry metrics) {
        this.pool = pool;
        this.vertx = vertx;
        this.signal = signal;
        this.notifications = Counter.builder("grants.outbox.notifications")
                .description("Notifications of outbox rows another replica (or the outbox trigger) committed that woke the relay")
                .register(metrics);
        this.reconnects = Counter.builder("grants.outbox.listen.connects")
                .description("Times the relay's LISTEN connection was taken (1 at start, +1 per reconnect)")
                .register(metrics);
    }

    void onStart(@Observes StartupEvent event) {
        running = true;
        signal.announceWith(this::announce);
        listen();
    }

    void onStop(@Observes ShutdownEvent event) {
        running = false;
        PgConnection connection = listening;
        listening = null;
        if (connection != null) {
            // back to the pool without the LISTEN, or that pool connection would keep receiving notifications
            connection.query("UNLISTEN " + CHANNEL + "; RESET synchronous_commit; RESET application_name").execute()
                    .onTermination().call(connection::close)
                    .subscribe().with(ignored -> { }, e -> { });
        }
    }

    /** Whether a connection is LISTENing now. */
    public boolean listening() {
        return listening != null;
    }

    private void listen() {
        if (!running) {
            return;
        }
        pool.getConnection()
                .chain(sql -> {
                    PgConnection connection = PgConnection.cast(sql);
                    connection.notificationHandler(n -> {
                        // its own announcements come back to it: this replica's bell rang at those commits
                        if (CHANNEL.equals(n.getChannel()) && n.getProcessId() != connection.processId()) {
                            notifications.increment();
                            signal.ring();
                        }
                    });
                    connection.closeHandler(() -> dropped(connection));
                    // its announcements are worth no WAL flush: one lost in a crash leaves rows for the others' poll
                    return connection.query("SET application_name = '" + LISTENER_NAME + "'; SET synchronous_commit = off; LISTEN "
                                    + CHANNEL).execute()
                            .onFailure().call(connection::close)
                            .replaceWith(connection);
                })
                .subscribe().with(this::took, this::failed);
    }

    private void took(PgConnection connection) {
        if (!running) {
            connection.closeAndForget();
            return;
        }
        listening = connection;
        reconnects.increment();
        if (failedAttempts > 0 || reconnects.count() > 1) {
            LOG.infof("outbox LISTEN connection taken again; the relay looks for rows committed meanwhile");
        }
        failedAttempts = 0;
        backoff = FIRST_BACKOFF;
        signal.ring(); // what was committed while nobody listened
    }

    /**
     * After a commit of this replica that wrote outbox rows: NOTIFY the other replicas' relays. Never waits;
     * while one NOTIFY is on its way, the commits announced meanwhile are folded into one more after it.
     */
    public void announce() {
        if (unannounced.getAndIncrement() == 0) {
            notifyOthers();
        }
    }

    private void notifyOthers() {
        int covered = unannounced.get(); // this NOTIFY goes out after each of these commits
        PgConnection connection = listening;
        if (connection == null) { // none listens now: the others' relays poll
            unannounced.set(0);
            return;
        }
        connection.query("NOTIFY " + CHANNEL).execute().subscribe().with(
                done -> announced(covered),
                failure -> announced(covered)); // a dropped connection is taken again (dropped); the others poll
    }

    private void announced(int covered) {
        if (unannounced.addAndGet(-covered) > 0) {
            notifyOthers();
        }
    }

    private void failed(Throwable e) {
        failedAttempts++;
        if (failedAttempts == 1 || failedAttempts % 20 == 0) {
            LOG.warnf("outbox LISTEN connection failed (%d in a row; the relay polls meanwhile), retrying in %s: %s",
                    failedAttempts, backoff, e.getMessage());
        }
        retryLater();
    }

    private void dropped(PgConnection connection) {
        if (listening != connection) {
            return; // closed by us
        }
        listening = null;
        if (running) {
            LOG.warnf("outbox LISTEN connection dropped; taking another in %s (the relay polls meanwhile)", backoff);
            retryLater();
        }
    }

    private void retryLater() {
        if (!running) {
            return;
        }
        Duration wait = backoff;
        backoff = wait.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : wait.multipliedBy(2);
        vertx.setTimer(wait.toMillis(), id -> listen());
    }
}
