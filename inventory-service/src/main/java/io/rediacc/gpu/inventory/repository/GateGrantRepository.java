package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.GateGrantRow;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The grant sets the gates reported they enforce. */
@ApplicationScoped
public class GateGrantRepository implements PanacheRepositoryBase<GateGrantRow, Long> {

    public Uni<List<GateGrantRow>> byGates(List<String> gateKeys) {
        if (gateKeys.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return list("from GateGrantRow gg where gg.gateKey in ?1 order by gg.device, gg.repoName", gateKeys);
    }

    public Uni<Long> deleteByGate(String gateKey) {
        return delete("gateKey", gateKey);
    }
}
