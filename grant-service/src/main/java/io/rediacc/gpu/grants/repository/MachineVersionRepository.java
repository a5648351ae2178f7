package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** The grant version of each machine (read here; {@link GrantWrites} raises it under the machine's lock). */
@ApplicationScoped
public class MachineVersionRepository implements PanacheRepositoryBase<MachineVersionEntity, String> {

    /** The machine's current version; 0 before its first change. */
    public Uni<Long> current(String machine) {
        return findById(machine).map(v -> v == null ? 0L : v.version);
    }
}
