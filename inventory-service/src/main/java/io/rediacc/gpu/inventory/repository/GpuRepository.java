package io.rediacc.gpu.inventory.repository;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** GPUs of the fleet. */
@ApplicationScoped
public class GpuRepository {

    private final Pool pool;

    public GpuRepository(Pool pool) {
        this.pool = pool;
    }

    public Uni<List<MachineInventory.Gpu>> byMachine(String machine) {
        return pool.preparedQuery("SELECT gpu_index, vendor, name, uuid, pci_bus_id, driver_version, memory_mib, render_node,"
                        + " mig_mode FROM gpu WHERE machine = $1 ORDER BY gpu_index, id")
                .execute(Tuple.of(machine)).map(rows -> {
                    List<MachineInventory.Gpu> gpus = new ArrayList<>(rows.size());
                    for (Row r : rows) {
                        gpus.add(new MachineInventory.Gpu(r.getInteger(0), r.getString(1), r.getString(2), r.getString(3),
                                r.getString(4), r.getString(5), r.getLong(6), r.getString(7), r.getString(8)));
                    }
                    return gpus;
                });
    }

    /** GPU count per machine, for the machines named; machines without GPUs are absent. */
    public Uni<Map<String, Long>> countByMachine(List<String> machines) {
        if (machines.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        return pool.preparedQuery("SELECT machine, count(*) FROM gpu WHERE machine = ANY($1) GROUP BY machine")
                .execute(Tuple.of(machines.toArray(String[]::new))).map(rows -> {
                    Map<String, Long> counts = new HashMap<>();
                    for (Row r : rows) {
                        counts.put(r.getString(0), r.getLong(1));
                    }
                    return counts;
                });
    }
}
