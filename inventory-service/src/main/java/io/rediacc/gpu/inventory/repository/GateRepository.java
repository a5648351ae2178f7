package io.rediacc.gpu.inventory.repository;

import io.rediacc.gpu.inventory.model.Gate;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

/** The gates of the fleet and their latest reports; each call runs in the caller's transaction. */
@ApplicationScoped
public class GateRepository {

    private static final String COLUMNS = "gate_key, machine, gate_id, applied_version, state, heartbeat_seconds, synced_at,"
            + " reported_at, last_seen_at, live_until, repos_json, daemons_json, epoch, seq";

    /** The gate's row, locked until the transaction ends; null when none is held. */
    public Uni<Gate> findForUpdate(SqlConnection conn, String key) {
        return conn.preparedQuery("SELECT " + COLUMNS + " FROM gate WHERE gate_key = $1 FOR UPDATE").execute(Tuple.of(key))
                .map(rows -> rows.size() == 0 ? null : gate(rows.iterator().next()));
    }

    public Uni<Void> insert(SqlConnection conn, Gate gate) {
        return conn.preparedQuery("INSERT INTO gate (" + COLUMNS + ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,"
                + " $13, $14)").execute(values(gate)).replaceWithVoid();
    }

    public Uni<Void> update(SqlConnection conn, Gate gate) {
        return conn.preparedQuery("UPDATE gate SET machine = $2, gate_id = $3, applied_version = $4, state = $5,"
                + " heartbeat_seconds = $6, synced_at = $7, reported_at = $8, last_seen_at = $9, live_until = $10,"
                + " repos_json = $11, daemons_json = $12, epoch = $13, seq = $14 WHERE gate_key = $1")
                .execute(values(gate)).replaceWithVoid();
    }

    /** Its grant rows go with it (ON DELETE CASCADE). */
    public Uni<Void> delete(SqlConnection conn, String key) {
        return conn.preparedQuery("DELETE FROM gate WHERE gate_key = $1").execute(Tuple.of(key)).replaceWithVoid();
    }

    private static Tuple values(Gate g) {
        return Tuple.from(new Object[] {g.key, g.machine, g.gateId, g.appliedVersion, g.state, g.heartbeatSeconds,
                SqlTimes.of(g.syncedAt), SqlTimes.of(g.reportedAt), SqlTimes.of(g.lastSeenAt), SqlTimes.of(g.liveUntil),
                g.reposJson, g.daemonsJson, g.epoch, g.seq});
    }

    private static Gate gate(Row r) {
        Gate g = new Gate();
        g.key = r.getString(0);
        g.machine = r.getString(1);
        g.gateId = r.getString(2);
        g.appliedVersion = r.getLong(3);
        g.state = r.getString(4);
        g.heartbeatSeconds = r.getInteger(5);
        g.syncedAt = SqlTimes.instant(r.getOffsetDateTime(6));
        g.reportedAt = SqlTimes.instant(r.getOffsetDateTime(7));
        g.lastSeenAt = SqlTimes.instant(r.getOffsetDateTime(8));
        g.liveUntil = SqlTimes.instant(r.getOffsetDateTime(9));
        g.reposJson = r.getString(10);
        g.daemonsJson = r.getString(11);
        g.epoch = r.getLong(12);
        g.seq = r.getLong(13);
        return g;
    }
}
