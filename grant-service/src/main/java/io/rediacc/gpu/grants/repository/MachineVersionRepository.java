package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** The grant version of each machine. Callers hold the machine's lock ({@link MachineLock}). */
@ApplicationScoped
public class MachineVersionRepository implements PanacheRepositoryBase<MachineVersionEntity, String> {

    /** The machine's current version; 0 before its first change. */
    public Uni<Long> current(String machine) {
        return findById(machine).map(v -> v == null ? 0L : v.version);
    }

    /** Raises the machine's version by one and returns the new version. */
    public Uni<Long> bump(String machine) {
        return findById(machine).chain(v -> {
            if (v == null) {
                MachineVersionEntity first = new MachineVersionEntity();
                first.machine = machine;
                first.version = 1;
                return persist(first).replaceWith(1L);
            }
            v.version = v.version + 1;
            return Uni.createFrom().item(v.version);
        });
    }
}
