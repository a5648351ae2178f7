package io.rediacc.gpu.grants.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.RepoRef;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.messaging.OutboxSignal;
import io.rediacc.gpu.grants.repository.GrantEntity;
import io.rediacc.gpu.grants.repository.GrantRepository;
import io.rediacc.gpu.grants.repository.GrantWrites;
import io.rediacc.gpu.grants.repository.GrantWrites.Candidate;
import io.rediacc.gpu.grants.repository.GrantWrites.GrantRow;
import io.rediacc.gpu.grants.repository.GrantWrites.MachineState;
import io.rediacc.gpu.grants.repository.GrantWrites.OutboxRecord;
import io.rediacc.gpu.grants.repository.MachineRepoEntity;
import io.rediacc.gpu.grants.repository.MachineRepoRepository;
import io.rediacc.gpu.grants.repository.MachineRepository;
import io.rediacc.gpu.grants.repository.MachineVersionRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;

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

    private final GrantWrites writes;
    private final RepoResolver resolver;
    private final MachineRepository machines;
    private final MachineRepoRepository repos;
    private final GrantRepository grants;
    private final MachineVersionRepository versions;
    private final OutboxSignal outboxSignal;
    private final GrantMetrics metrics;
    private final GrantsConfig config;

    public GrantService(GrantWrites writes, RepoResolver resolver, MachineRepository machines,
                        MachineRepoRepository repos, GrantRepository grants, MachineVersionRepository versions,
                        OutboxSignal outboxSignal, GrantMetrics metrics, GrantsConfig config) {
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
    private record Ask(String machine, String repoName, String device, boolean exclusive, String actor, Instant at) {
        Candidate candidate() {
            return new Candidate(device, exclusive, actor, at);
        }
    }

    /** How a transaction ended: a result to return, or a refusal committed as an audit event. */
    private sealed interface Outcome<T> {
    }

    private record Done<T>(T result) implements Outcome<T> {
    }

    private record Refused<T>(Problem problem) implements Outcome<T> {
    }

    /** The repo's own grant of the device (null if none), the rules' refusal (null if none), and the overlaps. */
    private record Verdict(Grant mine, Problem conflict, List<Overlap> overlaps) {
    }

    public Uni<GrantChange> grant(RepoRef ref, String machineField, CdiName device, boolean exclusive, String actor) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> {
                    Ask ask = new Ask(machine, ref.name(), device.qualified(), exclusive, actor, now());
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

    public Uni<RevokeChange> revoke(RepoRef ref, String machineField, CdiName device, String actor) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> {
                    Ask ask = new Ask(machine, ref.name(), device.qualified(), false, actor, now());
                    return writes.inTransaction(c -> revokeIn(c, ask));
                })
                .map(this::unwrap)
                .invoke(outboxSignal::committed)
                .invoke(metrics::revoked);
    }

    public Uni<RepoGrants> repoGrants(RepoRef ref, String machineField) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> Panache.withSession(() -> requireMachine(machine)
                        .chain(() -> requireRepo(machine, ref.name()))
                        .chain(repo -> grants.forRepo(machine, repo.guid)
                                .map(list -> new RepoGrants(machine, repo.name, repo.guid,
                                        list.stream().map(GrantEntity::toGrant).toList())))));
    }

    public Uni<MachineGrants> machineGrants(String machine) {
        Identifiers.machine(machine);
        return Panache.withSession(() -> machines.findById(machine)
                .chain(known -> versions.current(machine).chain(version -> {
                    if (known == null && version == 0) {
                        throw Problems.unknownMachine(machine);
                    }
                    return grants.forMachine(machine).map(list -> new MachineGrants(machine, version,
                            list.stream().map(GrantEntity::toGrant).toList()));
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
            Problem visible = visibleConflict(ask, state);
            if (visible != null) {
                return refuse(c, ask, state.repoGuid(), visible);
            }
            return writes.lockAndRead(c, ask.machine(), ask.repoName(), ask.candidate())
                    .chain(locked -> decide(c, ask, locked));
        });
    }

    private static Problem visibleConflict(Ask ask, MachineState state) {
        if (!state.known() || state.repoGuid() == null || !state.devices().containsKey(ask.device())) {
            return null; // those refusals are the locked path's
        }
        return judge(ask, state).conflict();
    }

    /** Under the machine's lock: the checks in today's order, then the change. */
    private Uni<Outcome<GrantChange>> decide(SqlConnection c, Ask ask, MachineState state) {
        if (!state.known()) {
            throw Problems.noInventory(ask.machine());
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
        if (mine != null && mine.exclusive() == ask.exclusive()) {
            return Uni.createFrom().item(new Done<>(new GrantChange(ask.machine(), ask.repoName(), state.repoGuid(),
                    ask.device(), ask.exclusive(), state.version(), false, false, verdict.overlaps())));
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
        return Uni.combine().all().unis(writes.upsertGrant(c, ask.machine(), grant),
                        recordChange(c, ask, state, GrantEvent.Type.GRANTED, after))
                .with(results -> new Done<>(new GrantChange(ask.machine(), grant.repoName(), grant.repoGuid(),
                        ask.device(), ask.exclusive(), (Long) results.get(1), true, created, verdict.overlaps())));
    }

    /** The grant rules over the machine's grants: what the repo holds already, and what refuses the ask. */
    private static Verdict judge(Ask ask, MachineState state) {
        Grant mine = null;
        List<Holder> others = new ArrayList<>();
        List<Overlap> overlaps = new ArrayList<>();
        for (GrantRow row : state.grants()) {
            if (row.candidate()) {
                continue;
            }
            Grant g = row.grant();
            boolean sameRepo = g.repoGuid().equals(state.repoGuid());
            if (sameRepo && g.device().equals(ask.device())) {
                mine = g;
            } else if (!sameRepo && g.device().equals(ask.device())) {
                others.add(new Holder(g.repoName(), g.repoGuid(), g.device(), g.exclusive()));
            }
            if (!sameRepo && CardOverlap.overlaps(ask.device(), g.device(), state.devices())) {
                overlaps.add(new Overlap(g.repoName(), g.device(), g.exclusive()));
            }
        }
        if (mine != null && mine.exclusive() == ask.exclusive()) {
            return new Verdict(mine, null, overlaps); // a repeat: answered as it is, whatever others hold
        }
        if (ask.exclusive() && !others.isEmpty()) {
            return new Verdict(mine, Problems.heldByOthers(ask.machine(), ask.device(), others), overlaps);
        }
        for (Holder holder : others) {
            if (holder.exclusive()) {
                return new Verdict(mine, Problems.heldExclusively(ask.machine(), ask.device(), holder), overlaps);
            }
        }
        return new Verdict(mine, null, overlaps);
    }

    private Uni<Outcome<RevokeChange>> revokeIn(SqlConnection c, Ask ask) {
        return writes.tryLockAndRead(c, ask.machine(), ask.repoName(), ask.candidate())
                .chain(state -> state.locked() ? Uni.createFrom().item(state)
                        : writes.lockAndRead(c, ask.machine(), ask.repoName(), ask.candidate()))
                .chain(state -> {
                    if (!state.known()) {
                        throw Problems.unknownMachine(ask.machine());
                    }
                    if (state.repoGuid() == null) {
                        return repoNotOnMachine(c, ask);
                    }
                    List<Grant> held = new ArrayList<>(); // in device order: the snapshot order within one repo
                    List<Grant> after = new ArrayList<>();
                    Grant grant = null;
                    for (GrantRow row : state.grants()) {
                        if (row.candidate()) {
                            continue;
                        }
                        Grant g = row.grant();
                        if (g.repoGuid().equals(state.repoGuid())) {
                            held.add(g);
                        }
                        if (isKey(g, state.repoGuid(), ask.device())) {
                            grant = g;
                        } else {
                            after.add(g);
                        }
                    }
                    if (grant == null) {
                        throw Problems.notGranted(ask.repoName(), ask.machine(), ask.device(),
                                held.stream().map(Grant::device).toList());
                    }
                    Ask revoked = new Ask(ask.machine(), ask.repoName(), ask.device(), grant.exclusive(), ask.actor(),
                            ask.at());
                    return Uni.combine().all().unis(writes.deleteGrant(c, ask.machine(), state.repoGuid(), ask.device()),
                                    recordChange(c, revoked, state, GrantEvent.Type.REVOKED, after))
                            .with(results -> {
                                if ((Integer) results.get(0) == 0) { // cannot happen under the lock; never a silent no-op
                                    throw Problems.notGranted(ask.repoName(), ask.machine(), ask.device(),
                                            held.stream().map(Grant::device).filter(d -> !d.equals(ask.device())).toList());
                                }
                                return new Done<>(new RevokeChange(ask.machine(), ask.repoName(), state.repoGuid(),
                                        ask.device(), (Long) results.get(1)));
                            });
                });
    }

    /**
     * Bumps the machine's version and writes the outbox rows: the complete grant set after the change
     * ({@code after}, in snapshot order), then the audit event. The new version is known from the
     * state read under the lock, so these statements go out together with the grant's own.
     */
    private Uni<Long> recordChange(SqlConnection c, Ask ask, MachineState state, GrantEvent.Type type, List<Grant> after) {
        long version = state.version() + 1;
        GrantSnapshot snapshot = new GrantSnapshot(ask.machine(), version, ask.at(), after);
        GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), type, ask.machine(), state.repoGuid(),
                ask.repoName(), ask.device(), ask.exclusive(), ask.actor(), null, version, ask.at());
        // the snapshot's id is derived from (machine, version): a re-published one is recognisable
        List<OutboxRecord> records = List.of(
                new OutboxRecord(Topics.GRANTS_TOPIC, ask.machine(), ask.machine(), ask.machine() + "/v" + version,
                        ask.at(), snapshot),
                new OutboxRecord(Topics.GRANT_EVENTS_TOPIC, ask.machine(), ask.machine(), event.id(), ask.at(), event));
        return Uni.combine().all().unis(writes.bumpVersion(c, ask.machine()), writes.appendOutbox(c, records))
                .with(results -> {
                    long bumped = (Long) results.get(0);
                    if (bumped != version) {
                        throw new IllegalStateException("machine " + ask.machine() + " went to version " + bumped
                                + " where " + version + " was expected: a change outside its lock");
                    }
                    return version;
                });
    }

    /** Commits a refusal as an audit event; the caller then gets the problem. */
    private <T> Uni<Outcome<T>> refuse(SqlConnection c, Ask ask, String repoGuid, Problem problem) {
        GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), GrantEvent.Type.REFUSED, ask.machine(),
                repoGuid, ask.repoName(), ask.device(), ask.exclusive(), ask.actor(),
                Problems.auditReason(problem, ask.device()), null, ask.at());
        metrics.refused(problem.error());
        return writes.appendOutbox(c, List.of(new OutboxRecord(Topics.GRANT_EVENTS_TOPIC, ask.machine(), ask.machine(),
                        event.id(), ask.at(), event)))
                .replaceWith(new Refused<>(problem));
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
    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }
}
