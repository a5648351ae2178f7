package io.rediacc.gpu.inventory.dashboard;

import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.inventory.service.IngestOutcome;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * Writes what the dashboard keeps beyond the read model: each machine's latest grant version, and
 * the latest grant events and refusals of each machine's repos, at most {@code dashboard.recent-per-repo}
 * of each (older rows are deleted in the same transaction), so the tables stay bounded however long
 * the service runs. Replays change nothing: versions only rise, events are unique by id, refusals by
 * their record's partition and offset.
 */
@ApplicationScoped
public class RecentActivityStore {

    private static final String UPSERT_VERSION = "INSERT INTO machine_grant_version (machine, version, updated_at)"
            + " VALUES ($1, $2, $3) ON CONFLICT (machine) DO UPDATE SET version = EXCLUDED.version,"
            + " updated_at = EXCLUDED.updated_at WHERE machine_grant_version.version < EXCLUDED.version";
    private static final String REMOVE_VERSION = "DELETE FROM machine_grant_version WHERE machine = $1";
    private static final String INSERT_EVENT = "INSERT INTO recent_grant_event (event_id, type, machine, repo_guid,"
            + " repo_name, device, exclusive, actor, reason, version, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
            + " ON CONFLICT (event_id) DO NOTHING";
    private static final String INSERT_REFUSAL = "INSERT INTO recent_refusal (record_key, machine, gate_id, repo_guid,"
            + " repo_name, method, endpoint, rule, device, message, fix, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
            + " ON CONFLICT (record_key) DO NOTHING";

    private final Pool pool;
    private final DashboardConfig config;

    public RecentActivityStore(Pool pool, DashboardConfig config) {
        this.pool = pool;
        this.config = config;
    }

    /** Keeps the snapshot's version when it is higher than the one held. */
    public Uni<IngestOutcome> grantVersion(GrantSnapshot snapshot) {
        return pool.preparedQuery(UPSERT_VERSION)
                .execute(Tuple.of(snapshot.machine(), snapshot.version(), time(snapshot.updatedAt())))
                .map(rows -> rows.rowCount() > 0 ? IngestOutcome.APPLIED : IngestOutcome.NOT_NEWER);
    }

    /** A tombstone on the grants topic: the machine and its grants are gone. */
    public Uni<IngestOutcome> removeGrantVersion(String machine) {
        return pool.preparedQuery(REMOVE_VERSION).execute(Tuple.of(machine)).replaceWith(IngestOutcome.REMOVED);
    }

    public Uni<IngestOutcome> grantEvent(GrantEvent e) {
        Tuple row = Tuple.tuple().addString(e.id()).addString(e.type().name().toLowerCase(Locale.ROOT))
                .addString(e.machine()).addString(e.repoGuid()).addString(e.repoName()).addString(e.device())
                .addBoolean(e.exclusive()).addString(e.actor()).addString(e.reason()).addLong(e.version())
                .addValue(time(e.at()));
        return insertBounded("recent_grant_event", INSERT_EVENT, row, e.machine(), e.repoName());
    }

    /** {@code recordKey} identifies the record (partition and offset): the decision itself has no id. */
    public Uni<IngestOutcome> refusal(String recordKey, GateDecision d) {
        Tuple row = Tuple.tuple().addString(recordKey).addString(d.machine()).addString(d.gateId())
                .addString(d.repoGuid()).addString(d.repoName()).addString(d.method()).addString(d.endpoint())
                .addString(d.rule()).addString(d.device()).addString(d.message()).addString(d.fix()).addValue(time(d.at()));
        return insertBounded("recent_refusal", INSERT_REFUSAL, row, d.machine(), d.repoName());
    }

    private Uni<IngestOutcome> insertBounded(String table, String insert, Tuple row, String machine, String repo) {
        String trim = "DELETE FROM " + table + " WHERE machine = $1 AND repo_name = $2 AND id NOT IN (SELECT id FROM "
                + table + " WHERE machine = $1 AND repo_name = $2 ORDER BY at DESC, id DESC LIMIT $3)";
        return pool.withTransaction(c -> c.preparedQuery(insert).execute(row).chain(inserted -> inserted.rowCount() == 0
                ? Uni.createFrom().item(IngestOutcome.NOT_NEWER)
                : c.preparedQuery(trim).execute(Tuple.of(machine, repo, config.recentPerRepo()))
                        .replaceWith(IngestOutcome.APPLIED)));
    }

    private static OffsetDateTime time(Instant at) {
        return at == null ? null : OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }
}
