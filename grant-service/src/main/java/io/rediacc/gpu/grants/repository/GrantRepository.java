package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.quarkus.panache.common.Parameters;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/** The grants, keyed by (machine, repo GUID, device). */
@ApplicationScoped
public class GrantRepository implements PanacheRepositoryBase<GrantEntity, Long> {

    /** Every grant of a machine in a stable order (the order of a published snapshot). */
    public Uni<List<GrantEntity>> forMachine(String machine) {
        return list("#Grant.forMachine", Parameters.with("machine", machine));
    }

    public Uni<List<GrantEntity>> forRepo(String machine, String repoGuid) {
        return list("#Grant.forRepo", Parameters.with("machine", machine).and("repoGuid", repoGuid));
    }
}
