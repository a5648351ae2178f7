package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.model.Gate;
import io.rediacc.gpu.inventory.repository.GateGrantRepository;
import io.rediacc.gpu.inventory.repository.GateRepository;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;

/**
 * Applies gate status reports: the grant set each gate enforces now. A report at or below the held one's
 * signed position ({@code epoch}, {@code seq}) is a replay and changes nothing ({@link IngestOutcome#REPLAY});
 * between reports of an older gate without positions, the older one — by {@code syncedAt} (the record's signed
 * {@code ce_time} when the gate sent none), then {@code appliedVersion} — is ignored. Times are signed ones
 * only, never the Kafka record timestamp, so a replay cannot make a dead gate live. A report of the same version,
 * state and repos is a heartbeat: it only extends how long the gate counts as live. Anything else
 * (a new version, a restarted gate loading again) replaces the gate's report and grant set.
 */
@ApplicationScoped
public class GateStatusIngestService {

    private static final Comparator<Gate> REPORT_ORDER = Comparator
            .comparing((Gate g) -> g.reportedAt)
            .thenComparingLong(g -> g.appliedVersion);

    private final Pool pool;
    private final GateRepository gates;
    private final GateGrantRepository grants;
    private final InventoryConfig config;

    public GateStatusIngestService(Pool pool, GateRepository gates, GateGrantRepository grants, InventoryConfig config) {
        this.pool = pool;
        this.gates = gates;
        this.grants = grants;
        this.config = config;
    }

    public Uni<IngestOutcome> apply(GateStatus status, Instant recordTime) {
        return pool.withTransaction(conn -> apply(conn, status, recordTime));
    }

    private Uni<IngestOutcome> apply(SqlConnection conn, GateStatus status, Instant recordTime) {
        Gate incoming = toGate(status, Timestamps.stored(recordTime));
        return gates.findForUpdate(conn, incoming.key).chain(held -> {
            if (held != null) {
                int order;
                if (incoming.epoch > 0 || held.epoch > 0) {
                    // the gate's signed position decides (issue 31): a status at or below the held one is a replay
                    if (incoming.epoch == held.epoch && incoming.seq == held.seq) {
                        return Uni.createFrom().item(IngestOutcome.NOT_NEWER); // the same status read again
                    }
                    if (!(incoming.epoch > held.epoch || incoming.epoch == held.epoch && incoming.seq > held.seq)) {
                        return Uni.createFrom().item(IngestOutcome.REPLAY);
                    }
                    order = 1;
                } else {
                    order = REPORT_ORDER.compare(incoming, held);
                    if (order < 0) {
                        return Uni.createFrom().item(IngestOutcome.NOT_NEWER);
                    }
                }
                boolean sameVersion = held.appliedVersion == incoming.appliedVersion;
                boolean sameReport = sameVersion && Objects.equals(held.state, incoming.state)
                        && Objects.equals(held.reposJson, incoming.reposJson);
                if (order == 0 && sameReport && !incoming.lastSeenAt.isAfter(held.lastSeenAt)
                        && Objects.equals(held.daemonsJson, incoming.daemonsJson)) {
                    return Uni.createFrom().item(IngestOutcome.NOT_NEWER); // a replay
                }
                if (sameReport) {
                    // a heartbeat (docker-gate repeats its syncedAt), or a later report of the same
                    // version: a version names one grant set, so the grants stay as they are
                    held.syncedAt = incoming.syncedAt;
                    held.reportedAt = incoming.reportedAt;
                    held.heartbeatSeconds = incoming.heartbeatSeconds;
                    held.lastSeenAt = Timestamps.latest(held.lastSeenAt, incoming.lastSeenAt);
                    held.liveUntil = liveUntil(held.lastSeenAt, held.heartbeatSeconds);
                    held.daemonsJson = incoming.daemonsJson; // a daemon's state changes without a new version
                    held.epoch = incoming.epoch;
                    held.seq = incoming.seq;
                    return gates.update(conn, held).replaceWith(IngestOutcome.REFRESHED);
                }
                // otherwise something changed (version, or a restarted gate "loading" again): replace
            }
            Gate gate = held != null ? held : incoming;
            if (held != null) {
                gate.appliedVersion = incoming.appliedVersion;
                gate.state = incoming.state;
                gate.heartbeatSeconds = incoming.heartbeatSeconds;
                gate.syncedAt = incoming.syncedAt;
                gate.reportedAt = incoming.reportedAt;
                gate.lastSeenAt = Timestamps.latest(held.lastSeenAt, incoming.lastSeenAt);
                gate.liveUntil = liveUntil(gate.lastSeenAt, gate.heartbeatSeconds);
                gate.reposJson = incoming.reposJson;
                gate.daemonsJson = incoming.daemonsJson;
                gate.epoch = incoming.epoch;
                gate.seq = incoming.seq;
            }
            // the gate's row first: its grant rows reference it
            Uni<Void> saved = held == null ? gates.insert(conn, gate) : gates.update(conn, gate);
            return saved.chain(() -> grants.replace(conn, gate, status.grants())).replaceWith(IngestOutcome.APPLIED);
        });
    }

    /** A tombstone for one gate: it was taken down. Later than everything held, or ignored. */
    public Uni<IngestOutcome> remove(String key, Instant recordTime) {
        Instant at = Timestamps.stored(recordTime);
        return pool.withTransaction(conn -> gates.findForUpdate(conn, key).chain(held -> {
            if (held == null || !at.isAfter(held.lastSeenAt)) {
                return Uni.createFrom().item(IngestOutcome.NOT_NEWER);
            }
            return gates.delete(conn, key).replaceWith(IngestOutcome.REMOVED);
        }));
    }

    private Gate toGate(GateStatus status, Instant recordTime) {
        Gate gate = new Gate();
        gate.key = Topics.gateStatusKey(status.machine(), status.gateId());
        gate.machine = status.machine();
        gate.gateId = status.gateId();
        gate.appliedVersion = status.appliedVersion();
        gate.state = status.state();
        gate.heartbeatSeconds = status.heartbeatSeconds() > 0
                ? io.rediacc.gpu.contracts.events.RecordBounds.livenessHeartbeatSeconds(status.heartbeatSeconds())
                : (int) config.heartbeat().toSeconds();
        gate.syncedAt = Timestamps.stored(status.syncedAt());
        gate.reportedAt = gate.syncedAt != null ? gate.syncedAt : recordTime;
        gate.lastSeenAt = Timestamps.latest(gate.reportedAt, recordTime);
        gate.liveUntil = liveUntil(gate.lastSeenAt, gate.heartbeatSeconds);
        gate.reposJson = JsonText.write(status.repos());
        gate.daemonsJson = JsonText.write(status.daemons());
        gate.epoch = status.epoch();
        gate.seq = status.seq();
        return gate;
    }

    private Instant liveUntil(Instant lastSeen, int heartbeatSeconds) {
        return lastSeen.plus(Duration.ofSeconds((long) heartbeatSeconds * config.gateLiveHeartbeats()));
    }
}
