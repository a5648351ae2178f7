package io.rediacc.gpu.grants.repository;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the history table a page at a time, oldest first, by keyset ({@code id > after}): a page
 * costs the same however deep it is, and rows written meanwhile never shift a page.
 */
@ApplicationScoped
public class HistoryQuery {

    private final Pool pool;

    public HistoryQuery(Pool pool) {
        this.pool = pool;
    }

    /** The filters of one page; null fields do not filter. {@code until} is exclusive. */
    public record Filter(String machine, String repo, String device, Instant since, Instant until, long after, int limit) {
    }

    /** One history row as the API shows it. */
    public record Entry(long id, String eventId, Instant at, String event, String machine, String repo, String repoGuid,
                        String device, boolean exclusive, String actor, Long version, String reason,
                        String requestReason, Instant expiresAt) {
    }

    public Uni<List<Entry>> page(Filter f) {
        StringBuilder sql = new StringBuilder("""
                select id, event_id, at, event, machine, repo_name, repo_guid, device, exclusive, actor, version,
                       reason, request_reason, expires_at
                from grant_history where id > $1""");
        Tuple args = Tuple.tuple().addLong(f.after());
        if (f.machine() != null) {
            args.addString(f.machine());
            sql.append(" and machine = $").append(args.size());
        }
        if (f.repo() != null) {
            args.addString(f.repo());
            sql.append(" and repo_name = $").append(args.size());
        }
        if (f.device() != null) {
            args.addString(f.device());
            sql.append(" and device = $").append(args.size());
        }
        if (f.since() != null) {
            args.addOffsetDateTime(utc(f.since()));
            sql.append(" and at >= $").append(args.size());
        }
        if (f.until() != null) {
            args.addOffsetDateTime(utc(f.until()));
            sql.append(" and at < $").append(args.size());
        }
        args.addInteger(f.limit());
        sql.append(" order by id limit $").append(args.size());
        return pool.preparedQuery(sql.toString()).execute(args).map(rows -> {
            List<Entry> entries = new ArrayList<>();
            for (Row r : rows) {
                entries.add(new Entry(r.getLong("id"), r.getString("event_id"), instant(r, "at"), r.getString("event"),
                        r.getString("machine"), r.getString("repo_name"), r.getString("repo_guid"), r.getString("device"),
                        r.getBoolean("exclusive"), r.getString("actor"), r.getLong("version"), r.getString("reason"),
                        r.getString("request_reason"), instant(r, "expires_at")));
            }
            return entries;
        });
    }

    private static Instant instant(Row r, String column) {
        OffsetDateTime t = r.getOffsetDateTime(column);
        return t == null ? null : t.toInstant();
    }

    private static OffsetDateTime utc(Instant at) {
        return OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }
}
