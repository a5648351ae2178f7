package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.inventory.service.InventoryBatchPlan.Held;
import io.rediacc.gpu.inventory.service.InventoryBatchPlan.MachinePlan;
import io.rediacc.gpu.inventory.service.InventoryBatchPlan.Write;
import io.rediacc.gpu.inventory.kafka.KafkaUserRemovals;
import io.rediacc.gpu.inventory.signing.MachineKeys;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Applies batches of machine inventories to the read model, one transaction per batch and a
 * dozen set-based statements however many machines it holds (a statement per row would make
 * ingest as slow as the database's round trips). Which record wins is decided by
 * {@link InventoryBatchPlan}: an inventory replaces the machine's previous one only when its
 * {@code generatedAt} is later, so replaying the compacted topic changes nothing.
 */
@ApplicationScoped
public class InventoryIngestService {

    // Locks the batch's machines in name order, so two replicas applying overlapping batches take turns.
    private static final String LOCK = "SELECT name, generated_at, content_digest, gpus_digest, devices_digest, repos_digest"
            + " FROM machine"
            + " WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE";
    private static final String REMOVE = "DELETE FROM machine WHERE name = ANY($1::text[])";
    private static final String MACHINE_COLUMNS = "name, platform, agent_version, schema_version, generated_at,"
            + " received_at, toolkit_json, persistenced_socket, spec_problems_json, content_digest, gpus_digest,"
            + " devices_digest, repos_digest";
    private static final String MACHINE_ROWS = "unnest($1::text[], $2::text[], $3::text[], $4::int[],"
            + " $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],"
            + " $12::text[], $13::text[])";
    // A plain INSERT for machines not held when the batch started: another writer that inserted
    // one meanwhile makes it fail, and the retry re-reads what is held (as the lock would have).
    private static final String INSERT_MACHINES = "INSERT INTO machine (" + MACHINE_COLUMNS + ") SELECT * FROM "
            + MACHINE_ROWS;
    private static final String UPDATE_MACHINES = "UPDATE machine m SET platform = u.platform,"
            + " agent_version = u.agent_version, schema_version = u.schema_version, generated_at = u.generated_at,"
            + " received_at = u.received_at, toolkit_json = u.toolkit_json, persistenced_socket = u.persistenced_socket,"
            + " spec_problems_json = u.spec_problems_json, content_digest = u.content_digest,"
            + " gpus_digest = u.gpus_digest, devices_digest = u.devices_digest, repos_digest = u.repos_digest"
            + " FROM " + MACHINE_ROWS + " AS u(" + MACHINE_COLUMNS + ") WHERE m.name = u.name";
    private static final String INSERT_RAW = "INSERT INTO machine_inventory_raw (machine, json)"
            + " SELECT * FROM unnest($1::text[], $2::text[])";
    private static final String UPDATE_RAW = "UPDATE machine_inventory_raw r SET json = u.json"
            + " FROM unnest($1::text[], $2::text[]) AS u(machine, json) WHERE r.machine = u.machine";
    private static final String CLEAR_GPUS = "DELETE FROM gpu WHERE machine = ANY($1::text[])";
    private static final String CLEAR_DEVICES = "DELETE FROM cdi_device WHERE machine = ANY($1::text[])";
    private static final String CLEAR_REPOS = "DELETE FROM machine_repo WHERE machine = ANY($1::text[])";
    private static final String INSERT_GPUS = "INSERT INTO gpu (machine, gpu_index, vendor, name, uuid, pci_bus_id,"
            + " driver_version, memory_mib, render_node, mig_mode) SELECT * FROM unnest($1::text[], $2::int[],"
            + " $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[])";
    private static final String INSERT_DEVICES = "INSERT INTO cdi_device (machine, name, device_nodes_json, spec_file,"
            + " spec_digest) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])";
    private static final String INSERT_REPOS = "INSERT INTO machine_repo (machine, name, guid, fork_of)"
            + " SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])";

    private final Pool pool;
    private final KafkaUserRemovals kafkaUserRemovals;

    public InventoryIngestService(Pool pool, KafkaUserRemovals kafkaUserRemovals) {
        this.pool = pool;
        this.kafkaUserRemovals = kafkaUserRemovals;
    }

    /**
     * Applies validated changes in one transaction; answers one outcome per change, in order.
     * {@code receivedAt} is when the batch was read.
     */
    public Uni<List<IngestOutcome>> apply(List<InventoryChange> changes, Instant receivedAt) {
        if (changes.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        List<String> names = changes.stream().map(InventoryChange::machine).distinct().toList();
        OffsetDateTime received = OffsetDateTime.ofInstant(Timestamps.stored(receivedAt), ZoneOffset.UTC);
        return pool.withTransaction(conn -> conn.preparedQuery(LOCK).execute(Tuple.of(names.toArray(String[]::new)))
                .chain(rows -> {
                    Map<String, Held> held = new HashMap<>();
                    for (Row row : rows) {
                        held.put(row.getString(0), new Held(row.getOffsetDateTime(1).toInstant(), row.getString(2),
                                new ListDigests(row.getString(3), row.getString(4), row.getString(5))));
                    }
                    InventoryBatchPlan plan = InventoryBatchPlan.of(changes, held);
                    // a removal (a verified tombstone) revokes the machine's key in the same transaction (issue 31),
                    // whether or not the read model held the machine: it speaks again only after a new registration
                    // and its Kafka user is deleted, remembered here so that neither a broker outage nor a restart
                    // forgets it (KafkaUserRemovals)
                    Map<String, Instant> removed = removals(changes);
                    return MachineKeys.revoke(conn, removed)
                            .chain(() -> kafkaUserRemovals.remember(conn, removed))
                            .chain(() -> write(conn, plan, received)).replaceWith(plan.outcomes());
                }));
    }

    /** Each removed machine with the latest signed time of its removals in the batch. */
    private static Map<String, Instant> removals(List<InventoryChange> changes) {
        Map<String, Instant> removed = new HashMap<>();
        for (InventoryChange c : changes) {
            if (c.isTombstone()) {
                removed.merge(c.machine(), c.recordTime(), (a, b) -> a.isAfter(b) ? a : b);
            }
        }
        return removed;
    }

    private static Uni<Void> write(SqlConnection conn, InventoryBatchPlan plan, OffsetDateTime received) {
        List<MachinePlan> removed = plan.writing(Write.REMOVE).stream().filter(m -> m.heldBefore).toList();
        List<MachinePlan> replaced = plan.writing(Write.REPLACE);
        List<MachinePlan> written = new ArrayList<>(replaced);
        written.addAll(plan.writing(Write.REFRESH));
        List<MachinePlan> inserted = written.stream().filter(m -> !m.heldBefore).toList();
        List<MachinePlan> updated = written.stream().filter(m -> m.heldBefore).toList();
        // each list only where it changed: a new machine's are inserted, a held machine's replaced
        List<MachinePlan> gpusWritten = replaced.stream().filter(MachinePlan::rewritesGpus).toList();
        List<MachinePlan> devicesWritten = replaced.stream().filter(MachinePlan::rewritesDevices).toList();
        List<MachinePlan> reposWritten = replaced.stream().filter(MachinePlan::rewritesRepos).toList();

        List<Function<SqlConnection, Uni<?>>> steps = new ArrayList<>();
        if (!removed.isEmpty()) {
            steps.add(c -> c.preparedQuery(REMOVE).execute(Tuple.of(names(removed))));
        }
        if (!inserted.isEmpty()) {
            steps.add(c -> c.preparedQuery(INSERT_MACHINES).execute(machineRows(inserted, received)));
            steps.add(c -> c.preparedQuery(INSERT_RAW).execute(rawRows(inserted)));
        }
        if (!updated.isEmpty()) {
            steps.add(c -> c.preparedQuery(UPDATE_MACHINES).execute(machineRows(updated, received)));
            steps.add(c -> c.preparedQuery(UPDATE_RAW).execute(rawRows(updated)));
        }
        clear(steps, CLEAR_GPUS, gpusWritten);
        clear(steps, CLEAR_DEVICES, devicesWritten);
        clear(steps, CLEAR_REPOS, reposWritten);
        insert(steps, INSERT_GPUS, gpuRows(gpusWritten));
        insert(steps, INSERT_DEVICES, deviceRows(devicesWritten));
        insert(steps, INSERT_REPOS, repoRows(reposWritten));
        if (steps.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        // Sent together, not one after the other: the connection runs them in the order they were
        // subscribed (each needs the ones before it, e.g. a machine row before its GPUs), and the
        // batch's writes cost one round trip. One failing fails the transaction.
        List<Uni<Void>> sent = steps.stream().map(step -> step.apply(conn).replaceWithVoid()).toList();
        return Uni.join().all(sent).andFailFast().replaceWithVoid();
    }

    /** Deletes the list's rows of the machines held before the batch (a new machine has none). */
    private static void clear(List<Function<SqlConnection, Uni<?>>> steps, String sql, List<MachinePlan> machines) {
        String[] held = machines.stream().filter(m -> m.heldBefore).map(m -> m.machine).toArray(String[]::new);
        if (held.length > 0) {
            steps.add(c -> c.preparedQuery(sql).execute(Tuple.of(held)));
        }
    }

    /** {@code rows}: null when there is nothing to insert. */
    private static void insert(List<Function<SqlConnection, Uni<?>>> steps, String sql, Tuple rows) {
        if (rows != null) {
            steps.add(c -> c.preparedQuery(sql).execute(rows));
        }
    }

    private static String[] names(List<MachinePlan> machines) {
        return machines.stream().map(m -> m.machine).toArray(String[]::new);
    }

    private static Tuple machineRows(List<MachinePlan> machines, OffsetDateTime received) {
        int n = machines.size();
        String[] name = new String[n];
        String[] platform = new String[n];
        String[] agentVersion = new String[n];
        Integer[] schemaVersion = new Integer[n];
        OffsetDateTime[] generatedAt = new OffsetDateTime[n];
        OffsetDateTime[] receivedAt = new OffsetDateTime[n];
        String[] toolkit = new String[n];
        String[] socket = new String[n];
        String[] specProblems = new String[n];
        String[] digest = new String[n];
        String[] gpusDigest = new String[n];
        String[] devicesDigest = new String[n];
        String[] reposDigest = new String[n];
        for (int i = 0; i < n; i++) {
            MachinePlan m = machines.get(i);
            MachineInventory inventory = m.winner.inventory();
            name[i] = m.machine;
            platform[i] = inventory.platform();
            agentVersion[i] = inventory.agentVersion();
            schemaVersion[i] = inventory.schemaVersion();
            generatedAt[i] = OffsetDateTime.ofInstant(Timestamps.stored(inventory.generatedAt()), ZoneOffset.UTC);
            receivedAt[i] = received;
            toolkit[i] = JsonText.write(inventory.toolkit());
            socket[i] = inventory.persistencedSocket();
            specProblems[i] = JsonText.write(inventory.specProblems());
            digest[i] = m.digest;
            gpusDigest[i] = m.winner.lists().gpus();
            devicesDigest[i] = m.winner.lists().devices();
            reposDigest[i] = m.winner.lists().repos();
        }
        return Tuple.from(List.<Object>of(name, platform, agentVersion, schemaVersion, generatedAt, receivedAt, toolkit, socket,
                specProblems, digest, gpusDigest, devicesDigest, reposDigest));
    }

    private static Tuple rawRows(List<MachinePlan> machines) {
        return Tuple.of(names(machines), machines.stream().map(m -> m.winner.rawJson()).toArray(String[]::new));
    }

    /** Null when no machine of the batch lists a GPU. */
    private static Tuple gpuRows(List<MachinePlan> machines) {
        List<String> machine = new ArrayList<>();
        List<Integer> index = new ArrayList<>();
        List<String> vendor = new ArrayList<>();
        List<String> name = new ArrayList<>();
        List<String> uuid = new ArrayList<>();
        List<String> pciBusId = new ArrayList<>();
        List<String> driver = new ArrayList<>();
        List<Long> memory = new ArrayList<>();
        List<String> renderNode = new ArrayList<>();
        List<String> migMode = new ArrayList<>();
        for (MachinePlan m : machines) {
            for (MachineInventory.Gpu g : m.winner.inventory().gpus()) {
                machine.add(m.machine);
                index.add(g.index());
                vendor.add(g.vendor());
                name.add(g.name());
                uuid.add(g.uuid());
                pciBusId.add(g.pciBusId());
                driver.add(g.driverVersion());
                memory.add(g.memoryMiB());
                renderNode.add(g.renderNode());
                migMode.add(g.migMode());
            }
        }
        if (machine.isEmpty()) {
            return null;
        }
        return Tuple.from(List.<Object>of(strings(machine), index.toArray(Integer[]::new), strings(vendor), strings(name),
                strings(uuid), strings(pciBusId), strings(driver), memory.toArray(Long[]::new), strings(renderNode),
                strings(migMode)));
    }

    private static Tuple deviceRows(List<MachinePlan> machines) {
        List<String> machine = new ArrayList<>();
        List<String> name = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        List<String> specFile = new ArrayList<>();
        List<String> specDigest = new ArrayList<>();
        for (MachinePlan m : machines) {
            for (MachineInventory.CdiDeviceInfo d : m.winner.inventory().cdiDevices()) {
                machine.add(m.machine);
                name.add(d.name());
                nodes.add(JsonText.write(d.deviceNodes()));
                specFile.add(d.specFile());
                specDigest.add(d.specDigest());
            }
        }
        if (machine.isEmpty()) {
            return null;
        }
        return Tuple.from(List.<Object>of(strings(machine), strings(name), strings(nodes), strings(specFile), strings(specDigest)));
    }

    private static Tuple repoRows(List<MachinePlan> machines) {
        List<String> machine = new ArrayList<>();
        List<String> name = new ArrayList<>();
        List<String> guid = new ArrayList<>();
        List<String> forkOf = new ArrayList<>();
        for (MachinePlan m : machines) {
            for (RepoInfo r : m.winner.inventory().repos()) {
                machine.add(m.machine);
                name.add(r.name());
                guid.add(r.guid());
                forkOf.add(r.forkOf());
            }
        }
        if (machine.isEmpty()) {
            return null;
        }
        return Tuple.from(List.<Object>of(strings(machine), strings(name), strings(guid), strings(forkOf)));
    }

    private static String[] strings(List<String> values) {
        return values.toArray(String[]::new);
    }
}
