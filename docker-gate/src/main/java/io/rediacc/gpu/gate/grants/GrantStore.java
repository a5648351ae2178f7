package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.gate.policy.GrantLookup;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The grants this gate enforces: the newest snapshot of this machine, as an immutable map from
 * repo GUID to granted CDI names that is swapped atomically, so a request sees one version whole.
 */
public final class GrantStore implements GrantLookup {

    private static final Logger LOG = Logger.getLogger(GrantStore.class);

    /** One consistent view; {@code caughtUp} means the grants topic was read to its end offsets. */
    public record State(GrantSnapshot snapshot, Map<String, Set<String>> byRepo, boolean fromDisk, boolean caughtUp,
                        Instant syncedAt) {
        public long version() {
            return snapshot == null ? 0 : snapshot.version();
        }

        public List<Grant> grants() {
            return snapshot == null ? List.of() : snapshot.grants();
        }
    }

    private final String machine;
    private final GrantSnapshotFile file;
    private final List<Consumer<State>> listeners = new CopyOnWriteArrayList<>();
    private volatile State state = new State(null, Map.of(), false, false, null);
    private volatile boolean diskInForce;
    /** The newest of this machine's snapshots read from the topic (until caught up: the topic's own truth). */
    private GrantSnapshot topicLatest;

    public GrantStore(String machine, GrantSnapshotFile file) {
        this.machine = machine;
        this.file = file;
    }

    public String machine() {
        return machine;
    }

    /** Called after every change of version or sync state (on the thread that made it). */
    public void onChange(Consumer<State> listener) {
        listeners.add(listener);
    }

    public State state() {
        return state;
    }

    /**
     * Loads the snapshot kept on disk, if any. It is not enforced yet: a gate that was down may hold a
     * grant revoked meanwhile, so device requests wait for the topic to be read to its end, and the disk
     * snapshot is enforced only if Kafka cannot be reached ({@link #kafkaUnreachable()}).
     */
    public synchronized void loadFromDisk() {
        file.read().map(GrantStore::shareRepeats).ifPresent(snapshot -> {
            if (!machine.equals(snapshot.machine())) {
                LOG.warnf("ignoring the grant snapshot on disk: it is for machine %s, this gate serves %s",
                        snapshot.machine(), machine);
                return;
            }
            if (snapshot.version() > state.version()) {
                state = new State(snapshot, index(snapshot), true, state.caughtUp(), Instant.now());
                LOG.infof("loaded grant snapshot version %d of %s from disk (%d grant(s))", snapshot.version(), machine,
                        snapshot.grants().size());
            }
        });
    }

    /** Applies a snapshot if it is this machine's and newer than the one held; returns whether it did. */
    public boolean apply(GrantSnapshot received) {
        State next;
        GrantSnapshot snapshot;
        synchronized (this) {
            if (!machine.equals(received.machine())) {
                return false;
            }
            if (topicLatest == null || received.version() > topicLatest.version()) {
                topicLatest = received;
            }
            if (received.version() <= state.version()) {
                return false;
            }
            snapshot = shareRepeats(received);
            next = new State(snapshot, index(snapshot), false, state.caughtUp(), Instant.now());
            state = next;
            file.write(snapshot);
        }
        LOG.infof("applied grant snapshot version %d of %s (%d grant(s))", snapshot.version(), machine,
                snapshot.grants().size());
        notifyListeners(next);
        return true;
    }

    /**
     * Marks the grants topic as read to the end offsets seen at start. From here the topic is the
     * only truth: a snapshot from disk that the topic does not hold exactly as its newest one for
     * this machine (a higher version, or the same version with other grants) was not written by
     * this gate from the topic, so it is logged as tampering, replaced by the topic's newest
     * snapshot (none: no grants) and the file is overwritten.
     */
    public void markCaughtUp() {
        State next;
        synchronized (this) {
            if (state.caughtUp()) {
                return;
            }
            if (state.fromDisk() && !sameSnapshot(state.snapshot(), topicLatest)) {
                GrantSnapshot disk = state.snapshot();
                LOG.errorf("TAMPERING: the grant snapshot on disk (%s: version %d, %d grant(s)) is not what %s holds"
                                + " for machine %s (newest: %s); enforcing the topic's and overwriting the file",
                        file.path(), disk.version(), disk.grants().size(), io.rediacc.gpu.contracts.events.Topics.GRANTS,
                        machine, topicLatest == null ? "none" : "version " + topicLatest.version() + ", "
                                + topicLatest.grants().size() + " grant(s)");
                GrantSnapshot truth = topicLatest == null ? null : shareRepeats(topicLatest);
                state = new State(truth, truth == null ? Map.of() : index(truth), false, state.caughtUp(), Instant.now());
                if (truth == null) {
                    file.delete();
                } else {
                    file.write(truth);
                }
            }
            next = new State(state.snapshot(), state.byRepo(), state.fromDisk(), true, Instant.now());
            state = next;
        }
        LOG.infof("grants of %s are in sync at version %d", machine, next.version());
        notifyListeners(next);
    }

    /**
     * The grants feed could not reach Kafka before catching up: from now on the snapshot loaded from
     * disk (if any) is enforced until the topic has been read to its end.
     */
    public void kafkaUnreachable() {
        State s = state;
        if (!diskInForce && !s.caughtUp()) {
            diskInForce = true;
            if (s.fromDisk()) {
                LOG.warnf("Kafka cannot be reached: enforcing the grant snapshot kept on disk (version %d of %s) until"
                        + " the grants topic is read to its end", s.version(), machine);
                notifyListeners(s);
            }
        }
    }

    @Override
    public boolean loaded() {
        State s = state;
        return s.caughtUp() || (s.fromDisk() && diskInForce);
    }

    @Override
    public boolean holds(String repoGuid, String cdiName) {
        Set<String> names = state.byRepo().get(repoGuid);
        return names != null && names.contains(cdiName);
    }

    /** Same machine, version and grants (the timestamps of a snapshot are part of what was published). */
    private static boolean sameSnapshot(GrantSnapshot disk, GrantSnapshot topic) {
        return disk != null && topic != null && disk.version() == topic.version()
                && new HashSet<>(disk.grants()).equals(new HashSet<>(topic.grants()));
    }

    private void notifyListeners(State next) {
        for (Consumer<State> listener : listeners) {
            try {
                listener.accept(next);
            } catch (RuntimeException e) {
                LOG.warn("a grant-state listener failed", e);
            }
        }
    }

    /**
     * The same snapshot with one instance of each repeated value: a repo's GUID and name, the device
     * names, grantedBy and grantedAt repeat across a machine's grants. Snapshots read by
     * {@link GrantSnapshotDecoder} share them already and come back with the same grants.
     */
    static GrantSnapshot shareRepeats(GrantSnapshot snapshot) {
        Map<Object, Object> seen = new HashMap<>();
        List<Grant> grants = new ArrayList<>(snapshot.grants().size());
        for (Grant g : snapshot.grants()) {
            grants.add(GrantSnapshotDecoder.shared(seen, g));
        }
        return new GrantSnapshot(snapshot.machine(), snapshot.version(), snapshot.updatedAt(), grants);
    }

    private static Map<String, Set<String>> index(GrantSnapshot snapshot) {
        Map<String, Set<String>> byRepo = new HashMap<>();
        for (Grant grant : snapshot.grants()) {
            if (grant.repoGuid() == null || grant.device() == null) {
                continue;
            }
            // GUIDs are canonical lower case in the contracts; normalise anyway so a producer's
            // upper-case GUID cannot silently withhold a grant.
            byRepo.computeIfAbsent(grant.repoGuid().toLowerCase(java.util.Locale.ROOT), g -> new HashSet<>())
                    .add(grant.device());
        }
        Map<String, Set<String>> frozen = new HashMap<>();
        byRepo.forEach((guid, names) -> frozen.put(guid, Set.copyOf(names)));
        return Map.copyOf(frozen);
    }
}
