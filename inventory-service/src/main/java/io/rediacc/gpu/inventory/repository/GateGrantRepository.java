package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.GateGrantRow;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** The grant sets the gates reported they enforce. */
@ApplicationScoped
public class GateGrantRepository implements PanacheRepositoryBase<GateGrantRow, Long> {

    public Uni<Long> deleteByGate(String gateKey) {
        return delete("gateKey", gateKey);
    }
}
