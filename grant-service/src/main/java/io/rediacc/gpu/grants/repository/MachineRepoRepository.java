package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The repos on each machine. */
@ApplicationScoped
public class MachineRepoRepository implements PanacheRepositoryBase<MachineRepoEntity, Long> {

    public Uni<List<MachineRepoEntity>> forMachine(String machine) {
        return list("machine = ?1 order by name", machine);
    }

    public Uni<MachineRepoEntity> byName(String machine, String name) {
        return find("machine = ?1 and name = ?2", machine, name).firstResult();
    }

    /** Every machine that has a repo of this name, to resolve a reference without {@code @machine}. */
    public Uni<List<MachineRepoEntity>> everywhere(String name) {
        return list("name = ?1 order by machine", name);
    }

    public Uni<Long> deleteForMachine(String machine) {
        return delete("machine = ?1", machine);
    }
}
