package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.rediacc.gpu.contracts.api.Overlap;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.RepoRef;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.repository.OutboxSignal;
import io.rediacc.gpu.grants.repository.GrantEntity;
import io.rediacc.gpu.grants.repository.GrantRepository;
import io.rediacc.gpu.grants.repository.GrantWrites;
import io.rediacc.gpu.grants.repository.GrantWrites.Candidate;
import io.rediacc.gpu.grants.repository.GrantWrites.GrantRow;
import io.rediacc.gpu.grants.repository.GrantWrites.HistoryRow;
import io.rediacc.gpu.grants.repository.GrantWrites.MachineState;
import io.rediacc.gpu.grants.repository.GrantWrites.OutboxRecord;
import io.rediacc.gpu.grants.repository.MachineRepoEntity;
import io.rediacc.gpu.grants.repository.MachineRepoRepository;
import io.rediacc.gpu.grants.repository.MachineRepository;
import io.rediacc.gpu.grants.repository.MachineVersionRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The grant rules. Every change runs in one transaction under its machine's lock (a PostgreSQL
 * advisory lock, see {@link GrantWrites}): checks, the grant row, the version bump and the outbox
 * rows (the machine's complete grant set and an audit event) commit together or not at all. A
 * refusal of the rules is committed too, as an audit event, and then reported to the caller. The
 * write path runs on the reactive client ({@link GrantWrites}); the reads of the API use Hibernate.
 */
@ApplicationScoped
public class GrantService {

    private final Clock clock;
    private final GrantWrites writes;
    private final RepoResolver resolver;
    private final MachineRepository machines;
    private final MachineRepoRepository repos;
    private final GrantRepository grants;
    private final MachineVersionRepository versions;
    private final OutboxSignal outboxSignal;
    private final GrantMetrics metrics;
    private final GrantsConfig config;
    private final GateRegistry gateRegistry;
    private final io.rediacc.gpu.grants.repository.MachineDeviceRepository devices;

    public GrantService(GrantWrites writes, RepoResolver resolver, MachineRepository machines,
                        MachineRepoRepository repos, GrantRepository grants, MachineVersionRepository versions,
                        OutboxSignal outboxSignal, GrantMetrics metrics, GateRegistry gateRegistry, GrantsConfig config,
                        io.rediacc.gpu.grants.repository.MachineDeviceRepository devices, Clock clock) {
        this.devices = devices;
        this.clock = clock;
        this.gateRegistry = gateRegistry;
        this.config = config;
        this.writes = writes;
        this.resolver = resolver;
        this.machines = machines;
        this.repos = repos;
        this.grants = grants;
        this.versions = versions;
        this.outboxSignal = outboxSignal;
        this.metrics = metrics;
    }

    /** What one grant call asks for, once its input is validated. */
    private record Ask(String machine, String repoName, String device, boolean exclusive, String actor, Instant at,
                       String reason, Instant expiresAt) {
        Ask(String machine, String repoName, String device, boolean exclusive, String actor, Instant at) {
            this(machine, repoName, device, exclusive, actor, at, null, null);
        }

        Candidate candidate() {
            return new Candidate(device, exclusive, actor, at);
        }
    }

    /** How a transaction ended: a result to return, or a refusal committed as an audit event. */
    private sealed interface Outcome<T> {
    }

    private record Done<T>(T result) implements Outcome<T> {
    }

    private record Refused<T>(ApiProblem problem) implements Outcome<T> {
    }

    /** The repo's own grant of the device (null if none), the rules' refusal (null if none), and the overlaps. */
    private record Verdict(Grant mine, ApiProblem conflict, List<Overlap> overlaps) {
    }

    /**
     * Grants a device to a repo.
     *
     * @param reason    the operator's reason, recorded in the history and the audit event (null: none)
     * @param expiresAt when the grant expires (null: never); a repeat with another expiry changes it
     */
    public Uni<GrantChange> grant(RepoRef ref, String machineField, CdiName device, boolean exclusive, String actor,
                                  String reason, Instant expiresAt) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> {
                    Ask ask = new Ask(machine, ref.name(), device.qualified(), exclusive, actor, now(), reason,
                            expiresAt == null ? null : expiresAt.truncatedTo(ChronoUnit.MICROS));
                    return writes.inTransaction(c -> grantIn(c, ask));
                })
                // a refusal committed an audit event too: wake the relay either way
                .invoke(outboxSignal::committed)
                .map(this::unwrap)
                .invoke(change -> {
                    if (change.changed()) {
                        metrics.granted();
                    }
                });
    }

    public Uni<RevokeChange> revoke(RepoRef ref, String machineField, CdiName device, String actor, String reason) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> {
                    Ask ask = new Ask(machine, ref.name(), device.qualified(), false, actor, now(), reason, null);
                    return writes.inTransaction(c -> revokeIn(c, ask));
                })
                .map(this::unwrap)
                .invoke(outboxSignal::committed)
                .invoke(metrics::revoked);
    }

    public Uni<RepoGrants> repoGrants(RepoRef ref, String machineField) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> Panache.withSession(() -> repos.byName(machine, ref.name()).chain(repo -> {
                    if (repo != null) {
                        return grants.forRepo(machine, repo.guid).map(list -> new RepoGrants(machine, repo.name,
                                repo.guid, false, list.stream().map(GrantEntity::toHeld).toList()));
                    }
                    // gone from the machine's inventory: its grants stay, by the last GUID known under its name
                    return grants.forRepoName(machine, ref.name()).chain(list -> {
                        if (list.isEmpty()) {
                            // 404 unless the repo's inventory landed since the first read: then it holds no grants yet
                            return requireMachine(machine).chain(() -> requireRepo(machine, ref.name()))
                                    .map(arrived -> new RepoGrants(machine, arrived.name, arrived.guid, false, List.of()));
                        }
                        String guid = lastKnownGuid(list.stream().map(GrantEntity::toGrant).toList(), ref.name());
                        return Uni.createFrom().item(new RepoGrants(machine, ref.name(), guid, true, list.stream()
                                .filter(g -> g.repoGuid.equals(guid)).map(GrantEntity::toHeld).toList()));
                    });
                })));
    }

    /** The GUID of the newest grant held under a repo name (the last GUID the name had), or null if none. */
    static String lastKnownGuid(List<Grant> grants, String repoName) {
        Grant newest = null;
        for (Grant g : grants) {
            if (g.repoName().equals(repoName) && (newest == null || g.grantedAt().isAfter(newest.grantedAt()))) {
                newest = g;
            }
        }
        return newest == null ? null : newest.repoGuid();
    }

    public Uni<MachineGrants> machineGrants(String machine) {
        Identifiers.machine(machine);
        return Panache.withSession(() -> machines.findById(machine)
                .chain(known -> versions.current(machine).chain(version -> {
                    if (known == null && version == 0) {
                        throw Problems.unknownMachine(machine);
                    }
                    Uni<java.util.Set<String>> defined = known == null ? Uni.createFrom().item((java.util.Set<String>) null)
                            : devices.forMachine(machine).map(rows -> rows.stream().map(d -> d.name)
                                    .collect(java.util.stream.Collectors.toSet()));
                    return defined.chain(names -> grants.forMachine(machine).map(list -> {
                        List<Grant> held = list.stream().map(GrantEntity::toGrant).toList();
                        // orphaned: granted, but the machine's last inventory no longer defines the name (setup removed it)
                        List<String> orphaned = names == null ? List.of() : held.stream().map(Grant::device)
                                .filter(d -> !names.contains(d)).distinct().sorted().toList();
                        return new MachineGrants(machine, version, held, orphaned);
                    }));
                })));
    }

    private Uni<Outcome<GrantChange>> grantIn(SqlConnection c, Ask ask) {
        return writes.tryLockAndRead(c, ask.machine(), ask.repoName(), ask.candidate()).chain(state -> {
            if (state.locked()) {
                return decide(c, ask, state);
            }
            // another change of this machine holds its lock: a conflict already committed (e.g. the
            // exclusive holder) is refused now instead of after every change queued on the lock; a
            // refusal changes nothing, so it needs no lock. Otherwise queue, and check again under it.
            ApiProblem visible = visibleConflict(ask, state);
            if (visible != null) {
                return refuse(c, ask, state.repoGuid(), visible);
            }
            return writes.lockAndRead(c, ask.machine(), ask.repoName(), ask.candidate())
                    .chain(locked -> decide(c, ask, locked));
        });
    }

    private static ApiProblem visibleConflict(Ask ask, MachineState state) {
        if (!state.known() || state.repoGuid() == null || !state.devices().containsKey(ask.device())) {
            return null; // those refusals are the locked path's
        }
        return judge(ask, state).conflict();
    }

    /** Under the machine's lock: the checks in today's order, then the change. */
    private Uni<Outcome<GrantChange>> decide(SqlConnection c, Ask ask, MachineState state) {
        if (!state.known()) {
            throw state.removedAt() != null ? Problems.machineRemoved(ask.machine(), state.removedAt())
                    : Problems.noInventory(ask.machine());
        }
        if (state.repoGuid() == null) {
            return repoNotOnMachine(c, ask);
        }
        if (!state.devices().containsKey(ask.device())) {
            return refuse(c, ask, state.repoGuid(), Problems.unknownDevice(ask.machine(), ask.device(),
                    state.devices().keySet()));
        }
        Verdict verdict = judge(ask, state);
        if (verdict.conflict() != null) {
            return refuse(c, ask, state.repoGuid(), verdict.conflict());
        }
        Grant mine = verdict.mine();
        if (mine != null && mine.exclusive() == ask.exclusive()
                && java.util.Objects.equals(expiryOf(state, mine), ask.expiresAt())) {
            return Uni.createFrom().item(new Done<>(new GrantChange(ask.machine(), ask.repoName(), state.repoGuid(),
                    ask.device(), ask.exclusive(), state.version(), false, false, verdict.overlaps(), ask.expiresAt())));
        }
        boolean created = mine == null;
        int held = state.grants().size() - 1; // less the candidate
        if (created && held >= config.maxGrantsPerMachine()) {
            throw Problems.tooManyGrants(ask.machine(), held, config.maxGrantsPerMachine());
        }
        Grant written = null;
        List<Grant> after = new ArrayList<>();
        for (GrantRow row : state.grants()) {
            if (row.candidate()) {
                written = row.grant();
                after.add(written);
            } else if (!isKey(row.grant(), state.repoGuid(), ask.device())) {
                after.add(row.grant()); // the repo's old row of this device, if any, is replaced by the candidate
            }
        }
        Grant grant = written;
        // the writes are independent statements: sent together, answered in one round trip
        return Uni.combine().all().unis(writes.upsertGrant(c, ask.machine(), grant, ask.expiresAt()),
                        recordChange(c, ask, state.version(), state.repoGuid(), GrantEvent.Type.GRANTED, null, after))
                .with(results -> new Done<>(new GrantChange(ask.machine(), grant.repoName(), grant.repoGuid(),
                        ask.device(), ask.exclusive(), (Long) results.get(1), true, created, verdict.overlaps(),
                        ask.expiresAt())));
    }

    /**
     * The grant rules over the machine's grants: what the repo holds already, and what refuses the ask.
     * Exclusive reserves the card, not the name: another repo's grant of any name that reaches one of
     * the same cards ({@link CardOverlap}: the index, UUID and {@code all} names, MIG slices and their
     * parent, the DRM names of an AMD card) is a conflict either way. The same repo never conflicts
     * with itself, so it may hold several names of its card.
     */
    private static Verdict judge(Ask ask, MachineState state) {
        Grant mine = null;
        List<Holder> reaching = new ArrayList<>();
        Holder exclusiveHolder = null;
        List<Overlap> overlaps = new ArrayList<>();
        CardOverlap cards = CardOverlap.of(state.devices(), state.cards());
        for (GrantRow row : state.grants()) {
            if (row.candidate()) {
                continue;
            }
            Grant g = row.grant();
            boolean sameRepo = g.repoGuid().equals(state.repoGuid());
            if (sameRepo && g.device().equals(ask.device())) {
                mine = g;
            }
            if (!sameRepo && cards.overlaps(ask.device(), g.device())) {
                Holder holder = new Holder(g.repoName(), g.repoGuid(), g.device(), g.exclusive());
                reaching.add(holder);
                // the same name first: the holder the caller asked about is the one named
                if (g.exclusive() && (exclusiveHolder == null || g.device().equals(ask.device()))) {
                    exclusiveHolder = holder;
                }
                overlaps.add(new Overlap(g.repoName(), g.device(), g.exclusive()));
            }
        }
        if (mine != null && mine.exclusive() == ask.exclusive()) {
            return new Verdict(mine, null, overlaps); // a repeat: answered as it is, whatever others hold
        }
        if (ask.exclusive() && !reaching.isEmpty()) {
            return new Verdict(mine, Problems.heldByOthers(ask.machine(), ask.device(), reaching), overlaps);
        }
        if (exclusiveHolder != null) {
            return new Verdict(mine, Problems.heldExclusively(ask.machine(), ask.device(), exclusiveHolder), overlaps);
        }
        return new Verdict(mine, null, overlaps);
    }

    private Uni<Outcome<RevokeChange>> revokeIn(SqlConnection c, Ask ask) {
        return lockAndRead(c, ask).chain(state -> {
            List<Grant> current = currentGrants(state);
            String repoGuid = state.repoGuid();
            if (repoGuid == null) {
                // the repo is gone from the machine's inventory: its grants stay revocable by name
                repoGuid = lastKnownGuid(current, ask.repoName());
            }
            if (!state.known() && current.isEmpty()) {
                throw Problems.unknownMachine(ask.machine());
            }
            if (repoGuid == null) {
                return repoNotOnMachine(c, ask);
            }
            String guid = repoGuid;
            List<Grant> held = new ArrayList<>(); // in device order: the snapshot order within one repo
            List<Grant> after = new ArrayList<>();
            Grant grant = null;
            for (Grant g : current) {
                if (g.repoGuid().equals(guid)) {
                    held.add(g);
                }
                if (isKey(g, guid, ask.device())) {
                    grant = g;
                } else {
                    after.add(g);
                }
            }
            if (grant == null) {
                throw Problems.notGranted(ask.repoName(), ask.machine(), ask.device(),
                        held.stream().map(Grant::device).toList());
            }
            Ask revoked = new Ask(ask.machine(), grant.repoName(), ask.device(), grant.exclusive(), ask.actor(),
                    ask.at(), ask.reason(), null);
            return Uni.combine().all().unis(writes.deleteGrant(c, ask.machine(), guid, ask.device()),
                            recordChange(c, revoked, state.version(), guid, GrantEvent.Type.REVOKED, null, after))
                    .with(results -> {
                        if ((Integer) results.get(0) == 0) { // cannot happen under the lock; never a silent no-op
                            throw Problems.notGranted(ask.repoName(), ask.machine(), ask.device(),
                                    held.stream().map(Grant::device).filter(d -> !d.equals(ask.device())).toList());
                        }
                        return new Done<>(new RevokeChange(ask.machine(), ask.repoName(), guid,
                                ask.device(), (Long) results.get(1)));
                    });
        });
    }

    /**
     * Revokes one grant whose expiry passed, in a transaction of its own under the machine's lock
     * (audited as {@code expired}, published like any revoke). Nothing happens when the grant is gone
     * or was granted again with a later expiry meanwhile; the result says whether it expired.
     */
    public Uni<Boolean> expire(String machine, String repoGuid, String device) {
        Instant at = now();
        return writes.inTransaction(c -> writes.lockAndRead(c, machine, "", new Candidate(device, false, EXPIRY_ACTOR, at))
                        .chain(state -> {
                            List<Grant> after = new ArrayList<>();
                            GrantRow due = null;
                            for (GrantRow row : state.grants()) {
                                if (row.candidate()) {
                                    continue;
                                }
                                if (isKey(row.grant(), repoGuid, device)) {
                                    due = row;
                                } else {
                                    after.add(row.grant());
                                }
                            }
                            if (due == null || due.expiresAt() == null || due.expiresAt().isAfter(at)) {
                                return Uni.createFrom().item(false);
                            }
                            Grant g = due.grant();
                            Ask ask = new Ask(machine, g.repoName(), device, g.exclusive(), EXPIRY_ACTOR, at, null,
                                    due.expiresAt());
                            return Uni.combine().all().unis(writes.deleteGrant(c, machine, repoGuid, device),
                                            recordChange(c, ask, state.version(), repoGuid, GrantEvent.Type.EXPIRED,
                                                    "expired at " + due.expiresAt(), after))
                                    .with(results -> true);
                        }))
                .invoke(expired -> {
                    if (expired) {
                        outboxSignal.committed();
                        metrics.revoked();
                    }
                });
    }

    /** Who the history names for a grant the service revoked because it expired. */
    public static final String EXPIRY_ACTOR = "grant-service (expiry)";

    /**
     * Removes a machine from the fleet: refused (409) while it holds grants unless {@code revokeGrants};
     * then, in one transaction under its lock, revokes every grant (each audited, one new version whose
     * snapshot is empty), tombstones its inventory record so every consumer forgets it, and forgets what
     * its inventory and gates told this service. Its version stays: it never goes back.
     */
    public Uni<MachineRemoval> removeMachine(String machine, boolean revokeGrants, String actor, String reason) {
        Identifiers.machine(machine);
        Instant at = now();
        return writes.inTransaction(c -> writes.lockAndRead(c, machine, "", new Candidate("-", false, actor, at))
                        .chain(state -> {
                            List<Grant> current = currentGrants(state);
                            Uni<Boolean> known = state.known() || !current.isEmpty() || state.version() != 0
                                    ? Uni.createFrom().item(true)
                                    // set up (its key registered) but never published: still a machine to remove
                                    : writes.hasKey(c, machine);
                            return known.chain(isKnown -> {
                                if (!isKnown) {
                                    throw Problems.unknownMachine(machine);
                                }
                                if (!current.isEmpty() && !revokeGrants) {
                                    throw Problems.machineHasGrants(machine, current);
                                }
                                return writes.gateIds(c, machine).chain(stored -> {
                                    // the gates this replica heard of, too (a status it could not store)
                                    java.util.TreeSet<String> gates = new java.util.TreeSet<>(stored);
                                    gateRegistry.gates(machine).forEach(g -> gates.add(g.gateId()));
                                    return removeIn(c, machine, state, current, List.copyOf(gates), actor, reason, at);
                                });
                            });
                        }))
                .invoke(removal -> outboxSignal.committed())
                .invoke(removal -> removal.revoked().forEach(g -> metrics.revoked()));
    }

    private Uni<MachineRemoval> removeIn(SqlConnection c, String machine, MachineState state, List<Grant> current,
                                         List<String> gates, String actor, String reason, Instant at) {
        String why = "machine " + machine + " removed from the fleet";
        List<OutboxRecord> records = new ArrayList<>();
        List<HistoryRow> history = new ArrayList<>();
        Long version = null;
        if (!current.isEmpty()) {
            version = state.version() + 1;
            records.add(new OutboxRecord(Topics.GRANTS_TOPIC, machine, machine, machine + "/v" + version, at,
                    new GrantSnapshot(machine, version, at, List.of())));
            for (Grant g : current) {
                GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), GrantEvent.Type.REVOKED, machine,
                        g.repoGuid(), g.repoName(), g.device(), g.exclusive(), actor, why, version, at, reason, null);
                records.add(new OutboxRecord(Topics.GRANT_EVENTS_TOPIC, machine, machine, event.id(), at, event));
                history.add(historyOf(event));
            }
        }
        // tombstones: the inventory (every consumer forgets the machine) and each gate's status slot
        records.add(new OutboxRecord(Topics.INVENTORY_TOPIC, machine, machine, machine + "/removed/" + at, at, null));
        for (String gate : gates) {
            records.add(new OutboxRecord(Topics.GATE_STATUS_TOPIC, Topics.gateStatusKey(machine, gate), machine,
                    machine + "/" + gate + "/removed/" + at, at, null));
        }
        Long newVersion = version;
        Uni<?> bump = current.isEmpty() ? Uni.createFrom().voidItem() : writes.bumpVersion(c, machine);
        return Uni.combine().all().unis(writes.deleteMachineGrants(c, machine), bump, writes.appendOutbox(c, records),
                        writes.appendHistory(c, history), writes.forgetMachine(c, machine),
                        writes.revokeKeyAndRecordRemoval(c, machine, actor, at, reason == null ? why : why + ": " + reason))
                .with(results -> new MachineRemoval(machine, current, newVersion == null ? state.version() : newVersion,
                        gates));
    }

    /** Who the audit trail would name for a re-publication (none is audited: nothing changes). */
    static final String REPUBLISH_ACTOR = "grant-service (republish)";

    /**
     * Re-publishes the machine's newest grant snapshot, re-signed now, if it was last published before
     * {@code before}: same version and grants, a new {@code ce_time}. Under the machine's lock, so it is never
     * queued behind a newer version's record (the relay sends a machine's rows in commit order). True when it did.
     */
    public Uni<Boolean> republish(String machine, Instant before) {
        Instant at = now();
        return writes.inTransaction(c -> writes.lockAndRead(c, machine, "", new Candidate("-", false, REPUBLISH_ACTOR, at))
                        .chain(state -> writes.claimRepublish(c, machine, before).chain(claimed -> {
                            if (!claimed || state.version() == 0) {
                                return Uni.createFrom().item(false);
                            }
                            GrantSnapshot snapshot = new GrantSnapshot(machine, state.version(), at, currentGrants(state));
                            // the same ce_id as the version's first publication: a consumer deduplicating by id loses nothing
                            return writes.appendOutbox(c, List.of(new OutboxRecord(Topics.GRANTS_TOPIC, machine, machine,
                                    machine + "/v" + state.version(), at, snapshot))).replaceWith(true);
                        })))
                .invoke(done -> {
                    if (done) {
                        outboxSignal.committed();
                    }
                });
    }

    /** Takes the machine's lock (without queueing when it is free) and reads its state under it. */
    private Uni<MachineState> lockAndRead(SqlConnection c, Ask ask) {
        return writes.tryLockAndRead(c, ask.machine(), ask.repoName(), ask.candidate())
                .chain(state -> state.locked() ? Uni.createFrom().item(state)
                        : writes.lockAndRead(c, ask.machine(), ask.repoName(), ask.candidate()));
    }

    private static List<Grant> currentGrants(MachineState state) {
        return state.grants().stream().filter(row -> !row.candidate()).map(GrantRow::grant).toList();
    }

    private static Instant expiryOf(MachineState state, Grant grant) {
        for (GrantRow row : state.grants()) {
            if (!row.candidate() && row.grant() == grant) {
                return row.expiresAt();
            }
        }
        return null;
    }

    /**
     * Bumps the machine's version and writes the outbox rows (the complete grant set after the change,
     * {@code after} in snapshot order, then the audit event) and the history row. The new version is
     * known from the state read under the lock, so these statements go out together with the grant's own.
     *
     * @param serviceReason why the service itself made the change (expiry); null for an operator's change
     */
    private Uni<Long> recordChange(SqlConnection c, Ask ask, long versionBefore, String repoGuid, GrantEvent.Type type,
                                   String serviceReason, List<Grant> after) {
        long version = versionBefore + 1;
        GrantSnapshot snapshot = new GrantSnapshot(ask.machine(), version, ask.at(), after);
        GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), type, ask.machine(), repoGuid,
                ask.repoName(), ask.device(), ask.exclusive(), ask.actor(), serviceReason, version, ask.at(),
                ask.reason(), ask.expiresAt());
        // the snapshot's id is derived from (machine, version): a re-published one is recognisable
        List<OutboxRecord> records = List.of(
                new OutboxRecord(Topics.GRANTS_TOPIC, ask.machine(), ask.machine(), ask.machine() + "/v" + version,
                        ask.at(), snapshot),
                new OutboxRecord(Topics.GRANT_EVENTS_TOPIC, ask.machine(), ask.machine(), event.id(), ask.at(), event));
        return Uni.combine().all().unis(writes.bumpVersion(c, ask.machine()), writes.appendOutbox(c, records),
                        writes.appendHistory(c, List.of(historyOf(event))))
                .with(results -> {
                    long bumped = (Long) results.get(0);
                    if (bumped != version) {
                        throw new IllegalStateException("machine " + ask.machine() + " went to version " + bumped
                                + " where " + version + " was expected: a change outside its lock");
                    }
                    return version;
                });
    }

    /** Commits a refusal as an audit event and a history row; the caller then gets the problem. */
    private <T> Uni<Outcome<T>> refuse(SqlConnection c, Ask ask, String repoGuid, ApiProblem problem) {
        GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), GrantEvent.Type.REFUSED, ask.machine(),
                repoGuid, ask.repoName(), ask.device(), ask.exclusive(), ask.actor(),
                Problems.auditReason(problem, ask.device()), null, ask.at(), ask.reason(), ask.expiresAt());
        metrics.refused(problem.error());
        return Uni.combine().all().unis(writes.appendOutbox(c, List.of(new OutboxRecord(Topics.GRANT_EVENTS_TOPIC,
                                ask.machine(), ask.machine(), event.id(), ask.at(), event))),
                        writes.appendHistory(c, List.of(historyOf(event))))
                .with(results -> new Refused<>(problem));
    }

    private static HistoryRow historyOf(GrantEvent e) {
        return new HistoryRow(e.id(), e.at(), e.type().name().toLowerCase(java.util.Locale.ROOT), e.machine(),
                e.repoGuid(), e.repoName(), e.device(), e.exclusive(), e.actor(), e.version(), e.reason(),
                e.requestReason(), e.expiresAt());
    }

    private <T> Uni<T> repoNotOnMachine(SqlConnection c, Ask ask) {
        return writes.repoNames(c, ask.machine()).map(there -> {
            throw Problems.repoNotOnMachine(ask.repoName(), ask.machine(), there);
        });
    }

    private static boolean isKey(Grant g, String repoGuid, String device) {
        return g.repoGuid().equals(repoGuid) && g.device().equals(device);
    }

    private <T> T unwrap(Outcome<T> outcome) {
        if (outcome instanceof Refused<T> refused) {
            throw refused.problem();
        }
        return ((Done<T>) outcome).result();
    }

    private Uni<Void> requireMachine(String machine) {
        return machines.findById(machine).invoke(m -> {
            if (m == null) {
                throw Problems.unknownMachine(machine);
            }
        }).replaceWithVoid();
    }

    private Uni<MachineRepoEntity> requireRepo(String machine, String repoName) {
        return repos.byName(machine, repoName).chain(repo -> {
            if (repo != null) {
                return Uni.createFrom().item(repo);
            }
            return repos.forMachine(machine).map(there -> {
                throw Problems.repoNotOnMachine(repoName, machine, there.stream().map(r -> r.name).toList());
            });
        });
    }

    /** Micro-second precision: what PostgreSQL stores, so a published snapshot equals the rows read back. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
