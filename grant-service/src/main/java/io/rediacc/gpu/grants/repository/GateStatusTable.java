package io.rediacc.gpu.grants.repository;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The {@code gate_status} table: the last status of each gate and its signed position ({@code epoch}, {@code seq};
 * {@code published_at} is the signed {@code ce_time}): only a later position replaces a row (GatePositions).
 */
@ApplicationScoped
public class GateStatusTable {

    private static final String UPSERT = """
            insert into gate_status (machine, gate_id, applied_version, state, synced_at, published_at,
                                     heartbeat_seconds, grants, epoch, seq)
            values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            on conflict (machine, gate_id) do update set
                applied_version = excluded.applied_version, state = excluded.state,
                synced_at = excluded.synced_at, published_at = excluded.published_at,
                heartbeat_seconds = excluded.heartbeat_seconds, grants = excluded.grants,
                epoch = excluded.epoch, seq = excluded.seq
            where (gate_status.epoch, gate_status.seq) < (excluded.epoch, excluded.seq)
               or gate_status.epoch = 0 and excluded.epoch = 0 and gate_status.published_at <= excluded.published_at""";

    private final Pool pool;

    public GateStatusTable(Pool pool) {
        this.pool = pool;
    }

    public Uni<Void> save(GateStatus status, Instant publishedAt) {
        Tuple row = Tuple.tuple()
                .addString(status.machine())
                .addString(status.gateId())
                .addLong(status.appliedVersion())
                .addString(status.state() == null ? "unknown" : status.state())
                .addOffsetDateTime(status.syncedAt() == null ? null : status.syncedAt().atOffset(ZoneOffset.UTC))
                .addOffsetDateTime(OffsetDateTime.ofInstant(publishedAt, ZoneOffset.UTC))
                .addInteger(status.heartbeatSeconds())
                .addString(EventJson.toJson(status.grants()))
                .addLong(status.epoch())
                .addLong(status.seq());
        return pool.preparedQuery(UPSERT).execute(row).replaceWithVoid();
    }
}
