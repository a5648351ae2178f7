package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The grantable CDI devices of each machine. */
@ApplicationScoped
public class MachineDeviceRepository implements PanacheRepositoryBase<MachineDeviceEntity, Long> {

    public Uni<List<MachineDeviceEntity>> forMachine(String machine) {
        return list("machine = ?1 order by name", machine);
    }

    public Uni<Long> deleteForMachine(String machine) {
        return delete("machine = ?1", machine);
    }
}
