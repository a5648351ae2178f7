package io.rediacc.gpu.grants.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.RepoRef;
import io.rediacc.gpu.grants.messaging.OutboxSignal;
import io.rediacc.gpu.grants.repository.DeviceNodes;
import io.rediacc.gpu.grants.repository.GrantEntity;
import io.rediacc.gpu.grants.repository.GrantRepository;
import io.rediacc.gpu.grants.repository.MachineDeviceEntity;
import io.rediacc.gpu.grants.repository.MachineDeviceRepository;
import io.rediacc.gpu.grants.repository.MachineLock;
import io.rediacc.gpu.grants.repository.MachineRepoEntity;
import io.rediacc.gpu.grants.repository.MachineRepoRepository;
import io.rediacc.gpu.grants.repository.MachineRepository;
import io.rediacc.gpu.grants.repository.MachineVersionRepository;
import io.rediacc.gpu.grants.repository.OutboxRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The grant rules. Every change runs in one transaction under its machine's lock
 * ({@link MachineLock}): checks, the grant row, the version bump and the outbox rows (the machine's
 * complete grant set and an audit event) commit together or not at all. A refusal of the rules is
 * committed too, as an audit event, and then reported to the caller.
 */
@ApplicationScoped
public class GrantService {

    private final MachineLock lock;
    private final RepoResolver resolver;
    private final MachineRepository machines;
    private final MachineDeviceRepository devices;
    private final MachineRepoRepository repos;
    private final GrantRepository grants;
    private final MachineVersionRepository versions;
    private final OutboxRepository outbox;
    private final OutboxSignal outboxSignal;
    private final GrantMetrics metrics;

    public GrantService(MachineLock lock, RepoResolver resolver, MachineRepository machines,
                        MachineDeviceRepository devices, MachineRepoRepository repos, GrantRepository grants,
                        MachineVersionRepository versions, OutboxRepository outbox, OutboxSignal outboxSignal,
                        GrantMetrics metrics) {
        this.lock = lock;
        this.resolver = resolver;
        this.machines = machines;
        this.devices = devices;
        this.repos = repos;
        this.grants = grants;
        this.versions = versions;
        this.outbox = outbox;
        this.outboxSignal = outboxSignal;
        this.metrics = metrics;
    }

    /** What one grant call asks for, once its input is validated. */
    private record Ask(String machine, String repoName, String device, boolean exclusive, String actor, Instant at) {
    }

    /** How a transaction ended: a result to return, or a refusal committed as an audit event. */
    private sealed interface Outcome<T> {
    }

    private record Done<T>(T result) implements Outcome<T> {
    }

    private record Refused<T>(Problem problem) implements Outcome<T> {
    }

    public Uni<GrantChange> grant(RepoRef ref, String machineField, CdiName device, boolean exclusive, String actor) {
        return resolver.machineOf(ref, machineField)
                .chain(machine -> Panache.withTransaction(() -> grantUnderLock(
                        new Ask(machine, ref.name(), device.qualified(), exclusive, actor, now()))))
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
                .chain(machine -> Panache.withTransaction(() -> revokeUnderLock(
                        new Ask(machine, ref.name(), device.qualified(), false, actor, now()))))
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

    private Uni<Outcome<GrantChange>> grantUnderLock(Ask ask) {
        return lock.lock(ask.machine())
                .chain(() -> machines.findById(ask.machine()))
                .chain(machine -> {
                    if (machine == null) {
                        throw Problems.noInventory(ask.machine());
                    }
                    return requireRepo(ask.machine(), ask.repoName());
                })
                .chain(repo -> devices.forMachine(ask.machine()).chain(definitions -> {
                    Map<String, List<String>> nodesByName = nodesByName(definitions);
                    if (!nodesByName.containsKey(ask.device())) {
                        return refuse(ask, repo, Problems.unknownDevice(ask.machine(), ask.device(), nodesByName.keySet()));
                    }
                    return grants.forMachine(ask.machine()).chain(all -> decide(ask, repo, nodesByName, all));
                }));
    }

    private Uni<Outcome<GrantChange>> decide(Ask ask, MachineRepoEntity repo, Map<String, List<String>> nodesByName,
                                             List<GrantEntity> all) {
        GrantEntity mine = null;
        List<Holder> others = new ArrayList<>();
        List<Overlap> overlaps = new ArrayList<>();
        for (GrantEntity g : all) {
            boolean sameRepo = g.repoGuid.equals(repo.guid);
            if (sameRepo && g.device.equals(ask.device())) {
                mine = g;
            } else if (!sameRepo && g.device.equals(ask.device())) {
                others.add(new Holder(g.repoName, g.repoGuid, g.device, g.exclusive));
            }
            if (!sameRepo && CardOverlap.overlaps(ask.device(), g.device, nodesByName)) {
                overlaps.add(new Overlap(g.repoName, g.device, g.exclusive));
            }
        }
        if (mine != null && mine.exclusive == ask.exclusive()) {
            return versions.current(ask.machine()).map(version -> new Done<>(new GrantChange(ask.machine(), repo.name,
                    repo.guid, ask.device(), ask.exclusive(), version, false, false, overlaps)));
        }
        if (ask.exclusive() && !others.isEmpty()) {
            return refuse(ask, repo, Problems.heldByOthers(ask.machine(), ask.device(), others));
        }
        for (Holder holder : others) {
            if (holder.exclusive()) {
                return refuse(ask, repo, Problems.heldExclusively(ask.machine(), ask.device(), holder));
            }
        }
        boolean created = mine == null;
        GrantEntity grant = created ? new GrantEntity() : mine;
        grant.machine = ask.machine();
        grant.repoGuid = repo.guid;
        grant.repoName = repo.name;
        grant.device = ask.device();
        grant.exclusive = ask.exclusive();
        grant.grantedBy = ask.actor();
        grant.grantedAt = ask.at();
        Uni<Void> write = created ? grants.persist(grant).replaceWithVoid() : Uni.createFrom().voidItem();
        return write
                .chain(() -> recordChange(ask, repo, GrantEvent.Type.GRANTED))
                .map(version -> new Done<>(new GrantChange(ask.machine(), repo.name, repo.guid, ask.device(),
                        ask.exclusive(), version, true, created, overlaps)));
    }

    private Uni<Outcome<RevokeChange>> revokeUnderLock(Ask ask) {
        return lock.lock(ask.machine())
                .chain(() -> requireMachine(ask.machine()))
                .chain(() -> requireRepo(ask.machine(), ask.repoName()))
                .chain(repo -> grants.forRepo(ask.machine(), repo.guid).chain(held -> {
                    GrantEntity grant = held.stream().filter(g -> g.device.equals(ask.device())).findFirst().orElse(null);
                    if (grant == null) {
                        throw Problems.notGranted(repo.name, ask.machine(), ask.device(),
                                held.stream().map(g -> g.device).toList());
                    }
                    return grants.deleteByKey(ask.machine(), repo.guid, ask.device())
                            .chain(deleted -> {
                                if (deleted == 0) {
                                    throw Problems.notGranted(repo.name, ask.machine(), ask.device(),
                                            held.stream().map(g -> g.device).filter(d -> !d.equals(ask.device())).toList());
                                }
                                return recordChange(new Ask(ask.machine(), ask.repoName(), ask.device(),
                                        grant.exclusive, ask.actor(), ask.at()), repo, GrantEvent.Type.REVOKED);
                            })
                            .map(version -> new Done<>(new RevokeChange(ask.machine(), repo.name, repo.guid,
                                    ask.device(), version)));
                }));
    }

    /** Bumps the machine's version and writes the outbox rows: the complete grant set, then the audit event. */
    private Uni<Long> recordChange(Ask ask, MachineRepoEntity repo, GrantEvent.Type type) {
        return Panache.flush()
                .chain(() -> versions.bump(ask.machine()))
                .chain(version -> grants.forMachine(ask.machine()).chain(all -> {
                    GrantSnapshot snapshot = new GrantSnapshot(ask.machine(), version, ask.at(),
                            all.stream().map(GrantEntity::toGrant).toList());
                    GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), type, ask.machine(), repo.guid,
                            repo.name, ask.device(), ask.exclusive(), ask.actor(), null, version, ask.at());
                    // the snapshot's id is derived from (machine, version): a re-published one is recognisable
                    return outbox.append(Topics.GRANTS_TOPIC, ask.machine(), ask.machine(),
                                    ask.machine() + "/v" + version, ask.at(), snapshot)
                            .chain(() -> outbox.append(Topics.GRANT_EVENTS_TOPIC, ask.machine(), ask.machine(),
                                    event.id(), ask.at(), event))
                            .replaceWith(version);
                }));
    }

    /** Commits a refusal as an audit event; the caller then gets the problem. */
    private <T> Uni<Outcome<T>> refuse(Ask ask, MachineRepoEntity repo, Problem problem) {
        GrantEvent event = new GrantEvent(UUID.randomUUID().toString(), GrantEvent.Type.REFUSED, ask.machine(),
                repo.guid, repo.name, ask.device(), ask.exclusive(), ask.actor(), problem.error() + ": " + problem.detail(),
                null, ask.at());
        metrics.refused(problem.error());
        return outbox.append(Topics.GRANT_EVENTS_TOPIC, ask.machine(), ask.machine(), event.id(), ask.at(), event)
                .replaceWith(new Refused<>(problem));
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

    private static Map<String, List<String>> nodesByName(List<MachineDeviceEntity> definitions) {
        Map<String, List<String>> byName = new LinkedHashMap<>();
        for (MachineDeviceEntity d : definitions) {
            byName.put(d.name, DeviceNodes.fromJson(d.deviceNodes));
        }
        return byName;
    }

    /** Micro-second precision: what PostgreSQL stores, so a published snapshot equals the rows read back. */
    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS);
    }
}
