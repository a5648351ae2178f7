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

    /** The grants held under a repo name (by any GUID): the grants of a repo gone from the machine. */
    public Uni<List<GrantEntity>> forRepoName(String machine, String repoName) {
        return list("#Grant.forRepoName", Parameters.with("machine", machine).and("repoName", repoName));
    }

    public Uni<List<GrantEntity>> forRepo(String machine, String repoGuid) {
        return list("#Grant.forRepo", Parameters.with("machine", machine).and("repoGuid", repoGuid));
    }
}
