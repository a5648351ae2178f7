package io.rediacc.gpu.grants.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.signing.RemovalFence;
import io.rediacc.gpu.grants.repository.DeviceNodes;
import io.rediacc.gpu.grants.repository.MachineDeviceEntity;
import io.rediacc.gpu.grants.repository.MachineDeviceRepository;
import io.rediacc.gpu.grants.repository.MachineEntity;
import io.rediacc.gpu.grants.repository.MachineLock;
import io.rediacc.gpu.grants.repository.MachineRepoEntity;
import io.rediacc.gpu.grants.repository.MachineRepoRepository;
import io.rediacc.gpu.grants.repository.MachineRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Keeps the service's copy of each machine's inventory: its grantable CDI names with their device
 * nodes and the cards they reach, and its repos with their GUIDs. Runs under the machine's lock so a grant never checks
 * against half an inventory. Existing grants are left alone when a device or repo disappears: the
 * gate refuses what the machine cannot resolve, and an operator revokes on purpose.
 */
@ApplicationScoped
public class InventoryCopy {

    private static final Logger LOG = Logger.getLogger(InventoryCopy.class);

    private final MachineLock lock;
    private final MachineRepository machines;
    private final MachineDeviceRepository devices;
    private final MachineRepoRepository repos;

    public InventoryCopy(MachineLock lock, MachineRepository machines, MachineDeviceRepository devices,
                            MachineRepoRepository repos) {
        this.lock = lock;
        this.machines = machines;
        this.devices = devices;
        this.repos = repos;
    }

    /** The parts of an inventory the grant rules use, validated; what breaks a rule is dropped and logged. */
    record Usable(String machine, String platform, Instant generatedAt, Map<String, List<String>> devices,
                  Map<String, List<String>> cards, Map<String, RepoInfo> repos) {
    }

    /**
     * Whether, under the machine's lock, key {@code keyId} is still the machine's registered key and a record it
     * signed at {@code signedAt} is after the machine's last removal and new registration. Read in the
     * inventory's transaction, not from the key cache: a removal revokes the key under the same lock, so an
     * inventory signed before the removal and arriving after it never brings the machine back (issue 31).
     */
    private static final String REGISTERED_KEY = """
            select k.key_id, k.registered_at, r.removed_at from machine_keys k
            left join machine_removals r on r.machine = k.machine where k.machine = :machine""";

    /**
     * Applies an inventory, signed at {@code signedAt} with key {@code keyId}, unless a newer one of the same
     * machine was applied already or the key no longer speaks for the machine; true if applied.
     */
    public Uni<Boolean> apply(MachineInventory inventory, Instant signedAt, String keyId) {
        Usable usable;
        try {
            usable = usable(inventory);
        } catch (InvalidIdentifierException e) {
            LOG.warnf("ignoring an inventory: %s", e.getMessage());
            return Uni.createFrom().item(false);
        }
        return Panache.withTransaction(() -> lock.lock(usable.machine())
                .chain(() -> Panache.getSession()).chain(session -> session.createNativeQuery(REGISTERED_KEY, Object[].class)
                        .setParameter("machine", usable.machine()).getResultList())
                .chain(rows -> {
                    if (!stillSpeaksFor(rows, keyId, signedAt)) {
                        LOG.warnf("ignoring an inventory of %s signed at %s with key %s: the machine was removed (its key"
                                + " revoked) or re-registered since", usable.machine(), signedAt, keyId);
                        return Uni.createFrom().item(false);
                    }
                    return machines.findById(usable.machine()).chain(known -> applyUnderLock(usable, known));
                }));
    }

    /** The key row (if any) still names {@code keyId}, and the record is after the machine's removal fence. */
    private static boolean stillSpeaksFor(List<Object[]> rows, String keyId, Instant signedAt) {
        if (rows.isEmpty() || !keyId.equals(rows.get(0)[0])) {
            return false;
        }
        return RemovalFence.signedAfter(signedAt, RemovalFence.fence(instant(rows.get(0)[1]), instant(rows.get(0)[2])));
    }

    private static Instant instant(Object column) {
        if (column == null) {
            return null;
        }
        if (column instanceof java.time.OffsetDateTime t) {
            return t.toInstant();
        }
        if (column instanceof java.time.Instant t) {
            return t;
        }
        if (column instanceof java.sql.Timestamp t) {
            return t.toInstant();
        }
        throw new IllegalStateException("a timestamptz column came back as " + column.getClass().getName());
    }

    private Uni<Boolean> applyUnderLock(Usable usable, MachineEntity known) {
        if (known != null && usable.generatedAt().isBefore(known.generatedAt)) {
            return Uni.createFrom().item(false); // an older inventory replayed or delayed
        }
        MachineEntity machine = known != null ? known : new MachineEntity();
        machine.machine = usable.machine();
        machine.platform = usable.platform();
        machine.generatedAt = usable.generatedAt();
        machine.receivedAt = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Uni<?> saved = known != null ? Uni.createFrom().voidItem() : machines.persist(machine);
        return saved.chain(() -> replaceDevices(usable)).chain(() -> replaceRepos(usable))
                .invoke(() -> LOG.debugf("inventory of %s applied (%d devices, %d repos)",
                        usable.machine(), usable.devices().size(), usable.repos().size()))
                .replaceWith(true);
    }

    private Uni<Void> replaceDevices(Usable usable) {
        return devices.forMachine(usable.machine()).chain(current -> {
            Map<String, List<String>> stored = new LinkedHashMap<>();
            Map<String, List<String>> storedCards = new LinkedHashMap<>();
            current.forEach(d -> {
                stored.put(d.name, DeviceNodes.fromJson(d.deviceNodes));
                storedCards.put(d.name, DeviceNodes.fromJson(d.cards));
            });
            if (stored.equals(usable.devices()) && storedCards.equals(usable.cards())) {
                return Uni.createFrom().voidItem(); // the usual heartbeat: nothing to rewrite
            }
            List<MachineDeviceEntity> fresh = new ArrayList<>();
            usable.devices().forEach((name, nodes) -> {
                MachineDeviceEntity d = new MachineDeviceEntity();
                d.machine = usable.machine();
                d.name = name;
                d.deviceNodes = DeviceNodes.toJson(nodes);
                d.cards = DeviceNodes.toJson(usable.cards().getOrDefault(name, List.of()));
                fresh.add(d);
            });
            // persisting an empty list fails ("The Uni set is empty"): an inventory without devices only deletes
            return devices.deleteForMachine(usable.machine())
                    .chain(() -> fresh.isEmpty() ? Uni.createFrom().voidItem() : devices.persist(fresh));
        });
    }

    private Uni<Void> replaceRepos(Usable usable) {
        return repos.forMachine(usable.machine()).chain(current -> {
            Map<String, RepoInfo> stored = new LinkedHashMap<>();
            current.forEach(r -> stored.put(r.name, new RepoInfo(r.name, r.guid, r.forkOf)));
            if (stored.equals(usable.repos())) {
                return Uni.createFrom().voidItem();
            }
            List<MachineRepoEntity> fresh = new ArrayList<>();
            usable.repos().values().forEach(info -> {
                MachineRepoEntity r = new MachineRepoEntity();
                r.machine = usable.machine();
                r.name = info.name();
                r.guid = info.guid();
                r.forkOf = info.forkOf();
                fresh.add(r);
            });
            return repos.deleteForMachine(usable.machine())
                    .chain(() -> fresh.isEmpty() ? Uni.createFrom().voidItem() : repos.persist(fresh));
        });
    }

    static Usable usable(MachineInventory inventory) {
        String machine = Identifiers.machine(inventory.machine());
        if (inventory.generatedAt() == null) {
            throw new InvalidIdentifierException("inventory of " + machine + " has no generatedAt");
        }
        Map<String, List<String>> deviceNodes = new java.util.TreeMap<>();
        Map<String, List<String>> cards = new java.util.TreeMap<>();
        for (MachineInventory.CdiDeviceInfo device : inventory.cdiDevices()) {
            if (!CdiName.isValid(device.name())) {
                LOG.warnf("inventory of %s: dropping CDI device \"%s\": not a valid CDI name", machine, device.name());
            } else if (deviceNodes.putIfAbsent(device.name(), List.copyOf(device.deviceNodes())) != null) {
                LOG.warnf("inventory of %s: CDI device %s is listed twice; keeping the first", machine, device.name());
            } else {
                cards.put(device.name(), device.cards().stream().filter(Objects::nonNull).sorted().distinct().toList());
            }
        }
        Map<String, RepoInfo> repos = new java.util.TreeMap<>();
        for (RepoInfo repo : inventory.repos()) {
            try {
                String name = Identifiers.repoName(repo.name());
                String guid = Identifiers.repoGuid(repo.guid());
                String forkOf = repo.forkOf() == null ? null : Identifiers.repoGuid(repo.forkOf());
                if (repos.putIfAbsent(name, new RepoInfo(name, guid, forkOf)) != null) {
                    LOG.warnf("inventory of %s: repo %s is listed twice; keeping the first", machine, name);
                }
            } catch (InvalidIdentifierException e) {
                LOG.warnf("inventory of %s: dropping a repo: %s", machine, e.getMessage());
            }
        }
        return new Usable(machine, Objects.requireNonNullElse(inventory.platform(), MachineInventory.PLATFORM_LOCAL),
                inventory.generatedAt().truncatedTo(ChronoUnit.MICROS), deviceNodes, cards, repos);
    }
}
