package io.rediacc.gpu.inventory.repository;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Machines of the fleet and the fleet queries over them. */
@ApplicationScoped
public class MachineRepository {

    /** A machine as the fleet listing shows it. */
    public record Listed(String name, String platform, String agentVersion, Instant generatedAt) {
    }

    private final Pool pool;

    public MachineRepository(Pool pool) {
        this.pool = pool;
    }

    public Uni<List<Listed>> page(FleetFilter filter, Instant now, int page, int size) {
        List<Object> params = new ArrayList<>();
        String where = where(filter, now, params);
        params.add(size);
        params.add((long) page * size);
        String sql = "SELECT m.name, m.platform, m.agent_version, m.generated_at FROM machine m" + where
                + " ORDER BY m.name LIMIT $" + (params.size() - 1) + " OFFSET $" + params.size();
        return pool.preparedQuery(sql).execute(Tuple.from(params)).map(rows -> {
            List<Listed> listed = new ArrayList<>(rows.size());
            for (Row r : rows) {
                listed.add(new Listed(r.getString(0), r.getString(1), r.getString(2), SqlTimes.instant(r.getOffsetDateTime(3))));
            }
            return listed;
        });
    }

    public Uni<Long> count(FleetFilter filter, Instant now) {
        List<Object> params = new ArrayList<>();
        String where = where(filter, now, params);
        return pool.preparedQuery("SELECT count(*) FROM machine m" + where).execute(Tuple.from(params))
                .map(MachineRepository::single);
    }

    /** Every machine with an inventory. */
    public Uni<Long> count() {
        return pool.query("SELECT count(*) FROM machine").execute().map(MachineRepository::single);
    }

    /** Machines whose latest inventory was generated before {@code threshold}. */
    public Uni<Long> countGeneratedBefore(Instant threshold) {
        return pool.preparedQuery("SELECT count(*) FROM machine WHERE generated_at < $1")
                .execute(Tuple.of(SqlTimes.of(threshold))).map(MachineRepository::single);
    }

    public Uni<Boolean> exists(String name) {
        return pool.preparedQuery("SELECT 1 FROM machine WHERE name = $1").execute(Tuple.of(name)).map(rows -> rows.size() > 0);
    }

    private static long single(RowSet<Row> rows) {
        return rows.iterator().next().getLong(0);
    }

    /** The filter as SQL, its values appended to {@code params} (numbered in the order they are added). */
    private static String where(FleetFilter filter, Instant now, List<Object> params) {
        List<String> clauses = new ArrayList<>();
        if (filter.vendor() != null) {
            params.add(filter.vendor().toLowerCase(Locale.ROOT));
            clauses.add("EXISTS (SELECT 1 FROM gpu g WHERE g.machine = m.name AND lower(g.vendor) = $" + params.size() + ")");
        }
        if (filter.product() != null) {
            params.add(LikePattern.contains(filter.product()));
            clauses.add("EXISTS (SELECT 1 FROM gpu g WHERE g.machine = m.name AND lower(g.name) LIKE $" + params.size()
                    + " ESCAPE '" + LikePattern.ESCAPE + "')");
        }
        if (filter.freeDevices()) {
            // Free = no live gate reports an exclusive grant of that exact name (names are independent:
            // an exclusive grant of nvidia.com/gpu=all does not reserve nvidia.com/gpu=0).
            params.add(SqlTimes.of(now));
            clauses.add("EXISTS (SELECT 1 FROM cdi_device d WHERE d.machine = m.name AND NOT EXISTS ("
                    + "SELECT 1 FROM gate_grant gg WHERE gg.machine = d.machine AND gg.device = d.name"
                    + " AND gg.exclusive AND gg.gate_key IN (SELECT gt.gate_key FROM gate gt WHERE gt.live_until > $"
                    + params.size() + ")))");
        }
        return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
    }
}
