package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.GpuRow;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** GPUs of the fleet. */
@ApplicationScoped
public class GpuRepository implements PanacheRepositoryBase<GpuRow, Long> {

    public Uni<List<GpuRow>> byMachine(String machine) {
        return list("from GpuRow g where g.machine = ?1 order by g.gpuIndex", machine);
    }

    /** GPU count per machine, for the machines named; machines without GPUs are absent. */
    public Uni<Map<String, Long>> countByMachine(List<String> machines) {
        if (machines.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        return Panache.getSession().chain(session -> session
                .createSelectionQuery("select g.machine, count(g) from GpuRow g where g.machine in :machines group by g.machine",
                        Object[].class)
                .setParameter("machines", machines)
                .getResultList())
                .map(rows -> {
                    Map<String, Long> counts = new HashMap<>();
                    for (Object[] row : rows) {
                        counts.put((String) row[0], (Long) row[1]);
                    }
                    return counts;
                });
    }
}
