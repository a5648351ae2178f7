package io.rediacc.gpu.inventory.service;

import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.inventory.model.CdiDeviceRow;
import io.rediacc.gpu.inventory.model.GpuRow;
import io.rediacc.gpu.inventory.model.Machine;
import io.rediacc.gpu.inventory.model.MachineRepoRow;
import io.rediacc.gpu.inventory.model.RawInventory;
import io.rediacc.gpu.inventory.repository.CdiDeviceRepository;
import io.rediacc.gpu.inventory.repository.GpuRepository;
import io.rediacc.gpu.inventory.repository.MachineRepoRepository;
import io.rediacc.gpu.inventory.repository.MachineRepository;
import io.rediacc.gpu.inventory.repository.RawInventoryRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.List;

/**
 * Applies machine inventories to the read model. An inventory replaces the machine's previous one
 * only when its {@code generatedAt} is later, so replaying the compacted topic (or receiving a late
 * duplicate) changes nothing.
 */
@ApplicationScoped
public class InventoryIngestService {

    private final MachineRepository machines;
    private final RawInventoryRepository rawInventories;
    private final GpuRepository gpus;
    private final CdiDeviceRepository cdiDevices;
    private final MachineRepoRepository repos;

    public InventoryIngestService(MachineRepository machines, RawInventoryRepository rawInventories, GpuRepository gpus,
                                  CdiDeviceRepository cdiDevices, MachineRepoRepository repos) {
        this.machines = machines;
        this.rawInventories = rawInventories;
        this.gpus = gpus;
        this.cdiDevices = cdiDevices;
        this.repos = repos;
    }

    /** Applies a validated inventory; {@code rawJson} is the record's value exactly as published. */
    @WithTransaction
    public Uni<IngestOutcome> apply(MachineInventory inventory, String rawJson, Instant receivedAt) {
        String name = inventory.machine();
        Instant generatedAt = Timestamps.stored(inventory.generatedAt());
        String digest = ContentDigest.of(inventory);
        return machines.findForUpdate(name).chain(held -> {
            if (held != null && !generatedAt.isAfter(held.generatedAt)) {
                return Uni.createFrom().item(IngestOutcome.NOT_NEWER);
            }
            if (held != null && digest.equals(held.contentDigest)) {
                // a heartbeat: same GPUs, devices and repos, only newer; the lists stay as they are
                held.generatedAt = generatedAt;
                held.receivedAt = Timestamps.stored(receivedAt);
                return saveRaw(name, rawJson).replaceWith(IngestOutcome.REFRESHED);
            }
            Machine machine = held != null ? held : new Machine();
            machine.name = name;
            machine.platform = inventory.platform();
            machine.agentVersion = inventory.agentVersion();
            machine.schemaVersion = inventory.schemaVersion();
            machine.generatedAt = generatedAt;
            machine.receivedAt = Timestamps.stored(receivedAt);
            machine.toolkitJson = JsonText.write(inventory.toolkit());
            machine.persistencedSocket = inventory.persistencedSocket();
            machine.specProblemsJson = JsonText.write(inventory.specProblems());
            machine.contentDigest = digest;
            // A new row is flushed first: the child rows below reference it.
            Uni<?> saved = held == null ? machines.persistAndFlush(machine) : Uni.createFrom().voidItem();
            return saved
                    .chain(() -> saveRaw(name, rawJson))
                    .chain(() -> gpus.deleteByMachine(name))
                    .chain(() -> PersistAll.of(gpus, inventory.gpus().stream().map(g -> GpuRow.of(name, g)).toList()))
                    .chain(() -> cdiDevices.deleteByMachine(name))
                    .chain(() -> PersistAll.of(cdiDevices, deviceRows(name, inventory.cdiDevices())))
                    .chain(() -> repos.deleteByMachine(name))
                    .chain(() -> PersistAll.of(repos, repoRows(name, inventory)))
                    .replaceWith(IngestOutcome.APPLIED);
        });
    }

    /**
     * A tombstone on the compacted topic: the machine left the fleet. Applied only when it is
     * later than the inventory held, so a replay cannot erase a machine that came back.
     */
    @WithTransaction
    public Uni<IngestOutcome> remove(String name, Instant recordTime) {
        Instant at = Timestamps.stored(recordTime);
        return machines.findForUpdate(name).chain(held -> {
            if (held == null || !at.isAfter(held.generatedAt)) {
                return Uni.createFrom().item(IngestOutcome.NOT_NEWER);
            }
            // child rows go with the machine (ON DELETE CASCADE)
            return machines.delete(held).replaceWith(IngestOutcome.REMOVED);
        });
    }

    private Uni<RawInventory> saveRaw(String machine, String rawJson) {
        return rawInventories.findById(machine).chain(raw -> {
            if (raw != null) {
                raw.json = rawJson;
                return Uni.createFrom().item(raw);
            }
            RawInventory created = new RawInventory();
            created.machine = machine;
            created.json = rawJson;
            return rawInventories.persist(created);
        });
    }

    private static List<CdiDeviceRow> deviceRows(String machine, List<MachineInventory.CdiDeviceInfo> devices) {
        return devices.stream().map(d -> {
            CdiDeviceRow row = new CdiDeviceRow();
            row.machine = machine;
            row.name = d.name();
            row.deviceNodesJson = JsonText.write(d.deviceNodes());
            row.specFile = d.specFile();
            row.specDigest = d.specDigest();
            return row;
        }).toList();
    }

    private static List<MachineRepoRow> repoRows(String machine, MachineInventory inventory) {
        return inventory.repos().stream().map(r -> {
            MachineRepoRow row = new MachineRepoRow();
            row.machine = machine;
            row.name = r.name();
            row.guid = r.guid();
            row.forkOf = r.forkOf();
            return row;
        }).toList();
    }
}
