package io.rediacc.gpu.inventory.repository;

import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.inventory.model.Gate;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;

/** The grant sets the gates reported they enforce; each call runs in the caller's transaction. */
@ApplicationScoped
public class GateGrantRepository {

    /** Replaces the gate's grant rows with {@code grants}. */
    public Uni<Void> replace(SqlConnection conn, Gate gate, List<Grant> grants) {
        Uni<Void> deleted = conn.preparedQuery("DELETE FROM gate_grant WHERE gate_key = $1").execute(Tuple.of(gate.key))
                .replaceWithVoid();
        if (grants.isEmpty()) {
            return deleted;
        }
        List<Tuple> rows = new ArrayList<>(grants.size());
        for (Grant g : grants) {
            rows.add(Tuple.from(new Object[] {gate.key, gate.machine, gate.gateId, g.repoGuid(), g.repoName(), g.device(),
                    g.exclusive(), g.grantedBy(), SqlTimes.of(g.grantedAt())}));
        }
        return deleted.chain(() -> conn.preparedQuery("INSERT INTO gate_grant (gate_key, machine, gate_id, repo_guid, repo_name,"
                + " device, exclusive, granted_by, granted_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)")
                .executeBatch(rows).replaceWithVoid());
    }
}
