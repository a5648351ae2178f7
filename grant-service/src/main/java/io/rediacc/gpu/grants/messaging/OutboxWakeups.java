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

/**
 * Rings the relay's {@link OutboxSignal} when any replica commits outbox rows: one pooled connection
 * LISTENs on {@value #CHANNEL}, which the outbox's statement trigger notifies at commit (migration
 * V4). So an idle relay reads nothing until there is something to publish, and a row another replica
 * committed is published at once instead of at the next poll.
 * <p>
 * When the connection drops (database restart, a killed backend) it is taken again with a backoff
 * (100 ms doubling to 5 s), and the bell rings once after each new LISTEN: a notification sent while
 * nobody listened is lost, so the relay looks once for what it may have missed.
 */
@ApplicationScoped
public class OutboxWakeups {

    /** The channel of the outbox trigger's {@code pg_notify}. */
    static final String CHANNEL = "grants_outbox";
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

    public OutboxWakeups(Pool pool, Vertx vertx, OutboxSignal signal, MeterRegistry metrics) {
        this.pool = pool;
        this.vertx = vertx;
        this.signal = signal;
        this.notifications = Counter.builder("grants.outbox.notifications")
                .description("Notifications of committed outbox rows (any replica's) that woke the relay")
                .register(metrics);
        this.reconnects = Counter.builder("grants.outbox.listen.connects")
                .description("Times the relay's LISTEN connection was taken (1 at start, +1 per reconnect)")
                .register(metrics);
    }

    void onStart(@Observes StartupEvent event) {
        running = true;
        listen();
    }

    void onStop(@Observes ShutdownEvent event) {
        running = false;
        PgConnection connection = listening;
        listening = null;
        if (connection != null) {
            // back to the pool without the LISTEN, or that pool connection would keep receiving notifications
            connection.query("UNLISTEN " + CHANNEL).execute()
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
                        if (CHANNEL.equals(n.getChannel())) {
                            notifications.increment();
                            signal.committed();
                        }
                    });
                    connection.closeHandler(() -> dropped(connection));
                    return connection.query("LISTEN " + CHANNEL).execute()
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
        signal.committed(); // what was committed while nobody listened
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
