package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.MachineRepoRow;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** Repos listed by the machines' inventories. */
@ApplicationScoped
public class MachineRepoRepository implements PanacheRepositoryBase<MachineRepoRow, Long> {

    public Uni<List<MachineRepoRow>> byMachine(String machine) {
        return list("from MachineRepoRow r where r.machine = ?1 order by r.name", machine);
    }
}
