package io.rediacc.gpu.inventory.dashboard;

import com.fasterxml.jackson.core.type.TypeReference;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.api.GateView;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.FleetRow;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.HistoryEntry;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.ModelCount;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.RefusalGroup;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.RepoGrant;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.RepoPlacement;
import io.rediacc.gpu.inventory.repository.LikePattern;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The dashboard's reads: one statement per view part, lists aggregated to JSON by the database where that saves round trips. */
@ApplicationScoped
public class DashboardQueries {

    /** Held = a live gate reports a grant of it; free = no live gate reports an exclusive grant of it (names are independent). */
    private static final String LIVE_GRANTS = "SELECT 1 FROM gate_grant gg JOIN gate gt ON gt.gate_key = gg.gate_key"
            + " WHERE gg.machine = d.machine AND gg.device = d.name AND gt.live_until > $1";
    private static final String FLEET = "SELECT * FROM (SELECT m.name, m.platform, m.generated_at,"
            + " (SELECT coalesce(json_agg(json_build_object('vendor', v.vendor, 'model', v.name, 'count', v.n)"
            + " ORDER BY v.vendor, v.name), '[]')::text FROM (SELECT g.vendor, g.name, count(*) AS n FROM gpu g"
            + " WHERE g.machine = m.name GROUP BY g.vendor, g.name) v),"
            + " (SELECT coalesce(json_agg(json_build_object('gateId', gt.gate_id, 'appliedVersion', gt.applied_version,"
            + " 'state', gt.state, 'live', gt.live_until > $1, 'syncedAt', gt.synced_at, 'lastSeenAt', gt.last_seen_at,"
            + " 'heartbeatSeconds', gt.heartbeat_seconds, 'daemons', gt.daemons_json::json) ORDER BY gt.gate_id), '[]')::text"
            + " FROM gate gt WHERE gt.machine = m.name),"
            + " (SELECT v.version FROM machine_grant_version v WHERE v.machine = m.name),"
            + " (SELECT count(*) FROM cdi_device d WHERE d.machine = m.name AND NOT EXISTS (" + LIVE_GRANTS
            + " AND gg.exclusive)) AS free_devices,"
            + " (SELECT count(*) FROM cdi_device d WHERE d.machine = m.name AND EXISTS (" + LIVE_GRANTS + ")) AS held_devices"
            + " FROM machine m"
            + " WHERE ($2::text IS NULL OR EXISTS (SELECT 1 FROM gpu g WHERE g.machine = m.name AND lower(g.vendor) = $2))"
            + " AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM gpu g WHERE g.machine = m.name"
            + " AND lower(g.name) LIKE $3 ESCAPE '" + LikePattern.ESCAPE + "'))) f"
            + " WHERE ($4 = 'all' OR ($4 = 'free' AND free_devices > 0) OR ($4 = 'held' AND held_devices > 0))"
            + " ORDER BY name LIMIT $5 OFFSET $6";
    private static final String LATEST_VERSION = "SELECT version FROM machine_grant_version WHERE machine = $1";
    // a fork's parent by name: the parent's row on the same machine, when it is still there
    private static final String REPO_PLACEMENTS = "SELECT r.machine, r.guid, r.fork_of, p.name FROM machine_repo r"
            + " LEFT JOIN machine_repo p ON p.machine = r.machine AND p.guid = r.fork_of WHERE r.name = $1"
            + " AND ($2::text IS NULL OR r.machine = $2) ORDER BY r.machine";
    private static final String REPO_GRANTS = "SELECT gg.machine, gg.device, bool_or(gg.exclusive),"
            + " string_agg(DISTINCT gg.gate_id, ', ') FROM gate_grant gg JOIN gate gt ON gt.gate_key = gg.gate_key"
            + " WHERE gg.repo_name = $1 AND gg.machine = $2 AND gt.live_until > $3 GROUP BY gg.machine, gg.device"
            + " ORDER BY gg.machine, gg.device";
    private static final String REPO_HISTORY = "SELECT at, type, machine, device, exclusive, actor, reason, version"
            + " FROM recent_grant_event WHERE repo_name = $1 AND machine = $2 ORDER BY at DESC, id DESC LIMIT $3";
    private static final String REFUSALS = "SELECT repo_name, machine, rule, count(*), max(at),"
            + " (array_agg(device ORDER BY at DESC, id DESC))[1], (array_agg(message ORDER BY at DESC, id DESC))[1],"
            + " (array_agg(fix ORDER BY at DESC, id DESC))[1]"
            + " FROM recent_refusal WHERE ($1::text IS NULL OR repo_name = $1) AND ($2::text IS NULL OR machine = $2)"
            + " GROUP BY repo_name, machine, rule ORDER BY max(at) DESC, repo_name, rule LIMIT $3";

    private static final TypeReference<List<ModelCount>> MODELS = new TypeReference<>() {
    };
    private static final TypeReference<List<GateView>> GATES = new TypeReference<>() {
    };

    private final Pool pool;
    private final Duration staleAfter;

    public DashboardQueries(Pool pool, io.rediacc.gpu.inventory.config.InventoryConfig config) {
        this.pool = pool;
        this.staleAfter = config.staleAfter();
    }

    /** One page of machines (one more than {@code size}: whether a next page exists); {@code show} is all, free or held. */
    public Uni<List<FleetRow>> fleet(String vendor, String model, String show, int page, int size, Instant now) {
        Tuple args = Tuple.tuple().addValue(utc(now))
                .addString(vendor == null ? null : vendor.toLowerCase(Locale.ROOT))
                .addString(model == null ? null : LikePattern.contains(model))
                .addString(show).addInteger(size + 1).addInteger(page * size);
        return pool.preparedQuery(FLEET).execute(args).map(rows -> list(rows, r -> {
            Instant generatedAt = r.getOffsetDateTime(2).toInstant();
            return new FleetRow(r.getString(0), r.getString(1), generatedAt,
                    Math.max(0, Duration.between(generatedAt, now).getSeconds()),
                    generatedAt.isBefore(now.minus(staleAfter)), read(r.getString(3), MODELS), read(r.getString(4), GATES),
                    r.getLong(5), r.getLong(6), r.getLong(7));
        }));
    }

    /** The machine's latest grant version (gpu.grants.v1), or null before its first snapshot. */
    public Uni<Long> latestVersion(String machine) {
        return pool.preparedQuery(LATEST_VERSION).execute(Tuple.of(machine))
                .map(rows -> rows.iterator().hasNext() ? rows.iterator().next().getLong(0) : null);
    }

    /** The machines whose inventory lists a repo of this name; only {@code machine} when it is not null. */
    public Uni<List<RepoPlacement>> placements(String repo, String machine) {
        return pool.preparedQuery(REPO_PLACEMENTS).execute(Tuple.tuple().addString(repo).addString(machine))
                .map(rows -> list(rows, r -> new RepoPlacement(r.getString(0), r.getString(1), r.getString(2), r.getString(3))));
    }

    /** The grants that live gates of {@code machine} enforce now for the repo of this name there. */
    public Uni<List<RepoGrant>> grants(String repo, String machine, Instant now) {
        return pool.preparedQuery(REPO_GRANTS).execute(Tuple.of(repo, machine, utc(now)))
                .map(rows -> list(rows, r -> new RepoGrant(r.getString(0), r.getString(1), r.getBoolean(2), r.getString(3))));
    }

    /** The latest grant events of the repo of this name on {@code machine} (another machine's same-named repo is another repo). */
    public Uni<List<HistoryEntry>> history(String repo, String machine, int limit) {
        return pool.preparedQuery(REPO_HISTORY).execute(Tuple.of(repo, machine, limit))
                .map(rows -> list(rows, r -> new HistoryEntry(r.getOffsetDateTime(0).toInstant(), r.getString(1),
                        r.getString(2), r.getString(3), r.getBoolean(4), r.getString(5), r.getString(6), r.getLong(7))));
    }

    /** Refusals grouped by repo, machine and rule, latest first; {@code repo} and {@code machine} narrow when not null. */
    public Uni<List<RefusalGroup>> refusals(String repo, String machine, int limit) {
        return pool.preparedQuery(REFUSALS).execute(Tuple.tuple().addString(repo).addString(machine).addInteger(limit))
                .map(rows -> list(rows, r -> new RefusalGroup(r.getString(0), r.getString(1), r.getString(2), r.getLong(3),
                        r.getOffsetDateTime(4).toInstant(), r.getString(5), r.getString(6), r.getString(7))));
    }

    private static <T> List<T> list(RowSet<Row> rows, Function<Row, T> map) {
        List<T> out = new ArrayList<>(rows.size());
        rows.forEach(r -> out.add(map.apply(r)));
        return out;
    }

    private static OffsetDateTime utc(Instant now) {
        return OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
    }

    private static <T> List<T> read(String json, TypeReference<List<T>> type) {
        try {
            return EventJson.mapper().readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("dashboard JSON is unreadable: " + e.getMessage(), e);
        }
    }
}
