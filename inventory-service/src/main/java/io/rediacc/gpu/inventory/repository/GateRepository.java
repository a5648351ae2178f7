package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.Gate;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.LockModeType;

import java.util.List;

/** The gates of the fleet and their latest reports. */
@ApplicationScoped
public class GateRepository implements PanacheRepositoryBase<Gate, String> {

    public Uni<Gate> findForUpdate(String key) {
        return findById(key, LockModeType.PESSIMISTIC_WRITE);
    }

    public Uni<List<Gate>> byMachine(String machine) {
        return list("from Gate g where g.machine = ?1 order by g.gateId", machine);
    }
}
