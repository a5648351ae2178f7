package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The grantable CDI devices of each machine. */
@ApplicationScoped
public class MachineDeviceRepository implements PanacheRepositoryBase<MachineDeviceEntity, Long> {

    public Uni<List<MachineDeviceEntity>> forMachine(String machine) {
        return list("#MachineDevice.forMachine", Parameters.with("machine", machine));
    }

    public Uni<Long> deleteForMachine(String machine) {
        return delete("#MachineDevice.deleteForMachine", Parameters.with("machine", machine));
    }
}
