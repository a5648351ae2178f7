package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The repos on each machine. */
@ApplicationScoped
public class MachineRepoRepository implements PanacheRepositoryBase<MachineRepoEntity, Long> {

    public Uni<List<MachineRepoEntity>> forMachine(String machine) {
        return list("#MachineRepo.forMachine", Parameters.with("machine", machine));
    }

    public Uni<MachineRepoEntity> byName(String machine, String name) {
        return find("#MachineRepo.byName", Parameters.with("machine", machine).and("name", name)).firstResult();
    }

    /** Every machine that has a repo of this name, to resolve a reference without {@code @machine}. */
    public Uni<List<MachineRepoEntity>> everywhere(String name) {
        return list("#MachineRepo.everywhere", Parameters.with("name", name));
    }

    public Uni<Long> deleteForMachine(String machine) {
        return delete("#MachineRepo.deleteForMachine", Parameters.with("machine", machine));
    }
}
