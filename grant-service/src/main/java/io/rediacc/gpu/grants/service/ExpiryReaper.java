package io.rediacc.gpu.grants.service;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.rediacc.gpu.grants.config.GrantsConfig;
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
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Revokes grants whose expiry passed. Every replica looks (every {@code grants.expiry-interval});
 * each due grant is revoked in a transaction of its own under its machine's lock, and one that
 * another replica revoked first (or that was granted again with a later expiry) is left alone, so
 * replicas may race here safely.
 */
@ApplicationScoped
public class ExpiryReaper {

    private static final Logger LOG = Logger.getLogger(ExpiryReaper.class);
    private static final String DUE = """
            select machine, repo_guid, device from grants
            where expires_at <= $1 order by expires_at limit $2""";

    private final Pool pool;
    private final Vertx vertx;
    private final GrantService grants;
    private final GrantsConfig config;
    private final Clock clock;
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile long timer = -1;

    public ExpiryReaper(Pool pool, Vertx vertx, GrantService grants, GrantsConfig config, Clock clock) {
        this.clock = clock;
        this.pool = pool;
        this.vertx = vertx;
        this.grants = grants;
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        timer = vertx.setPeriodic(config.expiryInterval().toMillis(), id -> tick());
    }

    void onStop(@Observes ShutdownEvent event) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    private void tick() {
        if (!busy.compareAndSet(false, true)) {
            return; // the previous pass is still revoking
        }
        reap().subscribe().with(n -> busy.set(false), e -> {
            busy.set(false);
            LOG.warnf("expiry pass failed (%s); the next one retries", e.getMessage());
        });
    }

    /** One pass: revokes what is due now, one grant per transaction; how many expired. */
    public Uni<Integer> reap() {
        OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
        return pool.preparedQuery(DUE).execute(Tuple.of(now, config.expiryBatch()))
                .chain(rows -> {
                    List<Row> due = new ArrayList<>();
                    rows.forEach(due::add);
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
                            .map(List::size);
                });
    }
}
