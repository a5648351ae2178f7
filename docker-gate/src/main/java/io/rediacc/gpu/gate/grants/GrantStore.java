package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.json.GrantSnapshotDecoder;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.GrantSnapshotCopy;
import io.rediacc.gpu.contracts.signing.SignedRecord;
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
 *
 * <p>Versions never go back (issue 31). The copy on disk is the record grant-service signed, verified
 * at start; a topic whose newest snapshot for this machine is older than that copy (a replayed old
 * record that compaction left as the newest offset, or a topic rolled back) does not replace it: the
 * gate keeps its copy and counts the topic's as a replay ({@code gate_grants_dropped_total{reason="replay"}}).
 */
public final class GrantStore implements GrantLookup {

    private static final Logger LOG = Logger.getLogger(GrantStore.class);

    /**
     * One consistent view; {@code caughtUp} means the grants topic was read to its end offsets.
     *
     * @param signedAt the newest signed {@code ce_time} of the held version (grant-service re-signs its
     *                 newest snapshot on a cadence); null with no snapshot
     */
    public record State(GrantSnapshot snapshot, Map<String, Set<String>> byRepo, boolean fromDisk, boolean caughtUp,
                        Instant syncedAt, Instant signedAt) {
        public long version() {
            return snapshot == null ? 0 : snapshot.version();
        }

        public List<Grant> grants() {
            return snapshot == null ? List.of() : snapshot.grants();
        }

        /**
         * Whether the held snapshot's newest signature is older than {@code bound} at {@code now}: grant-service
         * re-signs it on a cadence, so the gate is being kept from newer grants (a frozen topic, a feed cut off).
         */
        public boolean frozen(Instant now, java.time.Duration bound) {
            return snapshot != null && (signedAt == null || signedAt.isBefore(now.minus(bound)));
        }
    }

    private final String machine;
    private final GrantSnapshotFile file;
    private final SignedSnapshots signed;
    private final List<Consumer<State>> listeners = new CopyOnWriteArrayList<>();
    private volatile State state = new State(null, Map.of(), false, false, null, null);
    private volatile boolean diskInForce;
    /** The newest of this machine's snapshots read from the topic (until caught up: the topic's own truth). */
    private GrantSnapshot topicLatest;

    /** @param signed verifies the copy on disk and counts replays */
    public GrantStore(String machine, GrantSnapshotFile file, SignedSnapshots signed) {
        this.machine = machine;
        this.file = file;
        this.signed = signed;
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
     * Loads the snapshot kept on disk if it verifies as grant-service's record of this machine. It is not
     * enforced yet: a gate that was down may hold a grant revoked meanwhile, so device requests wait for the
     * topic to be read to its end, and the disk snapshot is enforced only if Kafka cannot be reached
     * ({@link #kafkaUnreachable()}). A copy that does not verify is ignored (logged as tampering).
     */
    public synchronized void loadFromDisk() {
        GrantSnapshotCopy.Loaded loaded = GrantSnapshotCopy.load(file.path(), machine, signed.keys(), Instant.now());
        if (loaded instanceof GrantSnapshotCopy.Refused r) {
            if (r.tampered()) {
                LOG.errorf("TAMPERING: the grant snapshot on disk (%s) is %s; ignoring it, the grants topic decides once"
                        + " it has been read", file.path(), r.why());
            } else {
                LOG.warnf("ignoring the grant snapshot on disk (%s): %s; the grants topic decides what is granted once it"
                        + " has been read", file.path(), r.why());
            }
            return;
        }
        if (loaded instanceof GrantSnapshotCopy.Verified v && v.snapshot().version() > state.version()) {
            GrantSnapshot snapshot = v.snapshot();
            state = new State(snapshot, index(snapshot), true, state.caughtUp(), Instant.now(), signedAt(v.record()));
            LOG.infof("loaded grant snapshot version %d of %s from disk (%d grant(s), verified)", snapshot.version(),
                    machine, snapshot.grants().size());
        }
    }

    /**
     * Applies a snapshot, whose signed record is {@code record} (verified by the caller), if it is this
     * machine's and newer than the one held; returns whether it did. Once caught up, an older snapshot, or
     * one of the held version with other grants, is counted as a replay; the held version re-signed
     * (grant-service's cadence) only refreshes {@link State#signedAt()}.
     */
    public boolean apply(GrantSnapshot received, SignedRecord record) {
        State next;
        GrantSnapshot snapshot;
        synchronized (this) {
            if (!machine.equals(received.machine())) {
                return false;
            }
            if (topicLatest == null || received.version() > topicLatest.version()) {
                topicLatest = received;
            }
            State held = state;
            if (received.version() <= held.version()) {
                if (received.version() == held.version() && sameSnapshot(held.snapshot(), received)) {
                    Instant at = signedAt(record);
                    if (held.signedAt() == null || at.isAfter(held.signedAt())) {
                        state = new State(held.snapshot(), held.byRepo(), held.fromDisk(), held.caughtUp(),
                                held.syncedAt(), at);
                    }
                } else if (held.caughtUp()) {
                    // while catching up, older records are the topic's history; markCaughtUp judges the newest
                    signed.replayed("version " + received.version() + " of " + machine + " (signed " + record.ceTime()
                            + ") arrived while version " + held.version() + " is held"
                            + (received.version() == held.version() ? " with other grants" : "")
                            + "; dropped, the gate keeps version " + held.version());
                }
                return false;
            }
            snapshot = shareRepeats(received);
            next = new State(snapshot, index(snapshot), false, held.caughtUp(), Instant.now(), signedAt(record));
            state = next;
            file.write(record, snapshot.version());
        }
        LOG.infof("applied grant snapshot version %d of %s (%d grant(s))", snapshot.version(), machine,
                snapshot.grants().size());
        notifyListeners(next);
        return true;
    }

    /**
     * Marks the grants topic as read to the end offsets seen at start. A verified copy from disk that the
     * topic's newest snapshot for this machine does not outrank stays in force: a topic holding an older
     * version (or none, or the same version with other grants) was replayed or rolled back, which is
     * counted and logged; the copy on disk is never overwritten with it.
     */
    public void markCaughtUp() {
        State next;
        synchronized (this) {
            if (state.caughtUp()) {
                return;
            }
            if (state.fromDisk() && !sameSnapshot(state.snapshot(), topicLatest)) {
                GrantSnapshot disk = state.snapshot();
                signed.replayed("the newest snapshot " + Topics.GRANTS + " holds for machine " + machine + " is "
                        + (topicLatest == null ? "none" : "version " + topicLatest.version()
                        + (topicLatest.version() == disk.version() ? " with other grants" : ""))
                        + ", while the verified copy on disk (" + file.path() + ") is version " + disk.version()
                        + "; enforcing the copy on disk (a replayed or rolled-back topic never takes a gate back)");
            }
            next = new State(state.snapshot(), state.byRepo(), state.fromDisk(), true, Instant.now(), state.signedAt());
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

    private static Instant signedAt(SignedRecord record) {
        try {
            return Instant.parse(record.ceTime());
        } catch (RuntimeException e) { // verified records carry an ISO-8601 ce_time; a test's unsigned one may not
            return null;
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

    /** Same version and grants (the timestamps of a snapshot are part of what was published). */
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
