package io.rediacc.gpu.grants.service;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Re-signs and re-publishes each machine's newest grant snapshot every {@code grants.republish-interval}
 * (issue 31). A signature says who wrote a record, not that it is the newest: anyone who can write
 * {@code gpu.grants.v1} can produce an old signed snapshot again, and compaction keeps the last offset, so
 * the replay would stay a machine's newest record. Re-publishing puts the true newest back on top within an
 * interval, and lets a gate see a frozen feed (its snapshot's signature grows older than
 * {@code gate.grants-freeze-after}). Every replica looks; each machine is claimed under its lock, so one
 * replica re-publishes it per interval. Machines whose grants changed within the interval are not due.
 */
@ApplicationScoped
public class SnapshotRepublisher {

    private static final Logger LOG = Logger.getLogger(SnapshotRepublisher.class);

    private final GrantService grants;
    private final io.rediacc.gpu.grants.repository.GrantWrites writes;
    private final Vertx vertx;
    private final GrantsConfig config;
    private final java.time.Clock clock;
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile long timer = -1;

    public SnapshotRepublisher(GrantService grants, io.rediacc.gpu.grants.repository.GrantWrites writes, Vertx vertx,
                               GrantsConfig config, java.time.Clock clock) {
        this.clock = clock;
        this.grants = grants;
        this.writes = writes;
        this.vertx = vertx;
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        // look a few times per interval, so no machine waits much longer than the interval
        long every = Math.max(1000, Math.min(config.republishInterval().toMillis() / 4, Duration.ofMinutes(1).toMillis()));
        timer = vertx.setPeriodic(every, id -> tick());
    }

    void onStop(@Observes ShutdownEvent event) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    private void tick() {
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        pass().subscribe().with(n -> busy.set(false), e -> {
            busy.set(false);
            LOG.warnf("grant snapshot re-publication pass failed (%s); the next one retries", e.getMessage());
        });
    }

    /** One pass: re-publishes the snapshots last published more than an interval ago; how many it did. */
    public Uni<Integer> pass() {
        return pass(clock.instant().minus(config.republishInterval()));
    }

    /** One pass over the machines whose newest snapshot was last published before {@code before}. */
    public Uni<Integer> pass(Instant before) {
        return writes.republishDue(before, config.republishBatch())
                .chain(due -> Multi.createFrom().iterable(due)
                        .onItem().transformToUniAndConcatenate(machine -> grants.republish(machine, before)
                                .onFailure().recoverWithItem(e -> {
                                    LOG.warnf("cannot re-publish the grant snapshot of %s (%s); the next pass retries",
                                            machine, e.getMessage());
                                    return false;
                                }))
                        .collect().asList()
                        .map(done -> (int) done.stream().filter(b -> b).count()));
    }
}
