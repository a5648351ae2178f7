package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.CdiDeviceRow;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** Grantable CDI device names of the fleet. */
@ApplicationScoped
public class CdiDeviceRepository implements PanacheRepositoryBase<CdiDeviceRow, Long> {

    public Uni<List<CdiDeviceRow>> byMachine(String machine) {
        return list("from CdiDeviceRow d where d.machine = ?1 order by d.name", machine);
    }
}
