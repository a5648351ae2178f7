package io.rediacc.gpu.gate.messaging;

import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.gate.grants.GrantStore;


import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Publishes what this gate enforces to {@code gpu.gate-status.v1}: after each applied version or
 * sync-state change, and on a heartbeat so grant-service can tell a live gate from a gone one.
 */
public final class GateStatusPublisher implements AutoCloseable {

    private final GateEventsProducer producer;
    private final GrantStore store;
    private final String gateId;
    private final Duration heartbeat;
    private final Supplier<List<RepoInfo>> repos;
    private final ScheduledExecutorService timer;
    private final int maxListedGrants;
    private final Supplier<List<DaemonStatus>> daemons;
    private final long epoch;
    private final Duration freezeAfter;
    private final Clock clock;
    /** The last status's sequence in this epoch; assigned and sent under the lock, so sequence order is send order. */
    private long seq;
    /** The digest of the last grants list seen: a heartbeat repeats it without re-hashing 100,000 grants. */
    /** How old the held snapshot's signature may grow before the status says grantsFrozen: three of grant-service's default re-signing cadences (10 min). */
    public static final Duration DEFAULT_FREEZE_AFTER = Duration.ofMinutes(30);

    private volatile Digested lastDigest;

    private record Digested(List<Grant> grants, String digest) {
    }

    /** @param maxListedGrants most grants listed in the record; above it only their count and digest */
    public GateStatusPublisher(GateEventsProducer producer, GrantStore store, String gateId, Duration heartbeat,
                               Supplier<List<RepoInfo>> repos, int maxListedGrants) {
        this(producer, store, gateId, heartbeat, repos, maxListedGrants, List::of);
    }

    /** @param daemons each served repo's daemon as last verified */
    public GateStatusPublisher(GateEventsProducer producer, GrantStore store, String gateId, Duration heartbeat,
                               Supplier<List<RepoInfo>> repos, int maxListedGrants, Supplier<List<DaemonStatus>> daemons) {
        this(producer, store, gateId, heartbeat, repos, maxListedGrants, daemons, Clock.systemUTC().millis(),
                DEFAULT_FREEZE_AFTER, Clock.systemUTC());
    }

    /**
     * @param epoch       this start's {@link StatusEpoch}: with a sequence rising per status, the position
     *                    readers use to drop replayed statuses
     * @param freezeAfter how old the held snapshot's signature may grow before the status says {@code grantsFrozen}
     */
    public GateStatusPublisher(GateEventsProducer producer, GrantStore store, String gateId, Duration heartbeat,
                               Supplier<List<RepoInfo>> repos, int maxListedGrants, Supplier<List<DaemonStatus>> daemons,
                               long epoch, Duration freezeAfter, Clock clock) {
        this.epoch = epoch;
        this.freezeAfter = freezeAfter;
        this.clock = clock;
        this.daemons = daemons;
        this.maxListedGrants = maxListedGrants;
        this.producer = producer;
        this.store = store;
        this.gateId = gateId;
        this.heartbeat = heartbeat;
        this.repos = repos;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gate-status-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        store.onChange(state -> publish());
        long ms = Math.max(100, heartbeat.toMillis());
        timer.scheduleAtFixedRate(this::publish, 0, ms, TimeUnit.MILLISECONDS);
    }

    /** What the next status would say (its position not assigned yet: epoch and seq as of the last one sent). */
    public GateStatus current() {
        return current(seq);
    }

    private GateStatus current(long sequence) {
        GrantStore.State state = store.state();
        List<Grant> grants = state.grants();
        boolean listed = grants.size() <= maxListedGrants;
        return new GateStatus(store.machine(), gateId, state.version(),
                state.caughtUp() ? GateStatus.SYNCED : GateStatus.LOADING, listed ? grants : List.of(), repos.get(),
                (int) Math.max(1, heartbeat.toSeconds()), state.syncedAt(), grants.size(), digest(grants), listed,
                daemons.get(), epoch, sequence, state.signedAt(), state.frozen(clock.instant(), freezeAfter));
    }

    private String digest(List<Grant> grants) {
        Digested last = lastDigest;
        if (last == null || last.grants() != grants) {
            last = new Digested(grants, GateStatus.digest(grants));
            lastDigest = last;
        }
        return last.digest();
    }

    public synchronized void publish() {
        GateStatus status = current(++seq);
        producer.send(Topics.GATE_STATUS_TOPIC, Topics.gateStatusKey(status.machine(), gateId),
                status.machine() + "/" + gateId, status);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
