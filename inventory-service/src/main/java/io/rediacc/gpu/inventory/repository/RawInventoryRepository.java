package io.rediacc.gpu.inventory.repository;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

/** The inventory documents exactly as the machines published them. */
@ApplicationScoped
public class RawInventoryRepository {

    private final Pool pool;

    public RawInventoryRepository(Pool pool) {
        this.pool = pool;
    }

    /** The machine's latest record as published; null when the machine is unknown. */
    public Uni<String> json(String machine) {
        return pool.preparedQuery("SELECT json FROM machine_inventory_raw WHERE machine = $1").execute(Tuple.of(machine))
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString(0));
    }
}
