package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.GateStatus;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The highest signed position accepted per gate (issue 31): ({@code epoch}, {@code seq}) of its status, or for
 * a gate of an older release (epoch 0) the signed {@code ce_time}. Loaded once from {@code gate_status} (where
 * every accepted status's position is kept) and then held in memory, so a status costs no extra round trip.
 * A status below the held position is a replay (dropped, counted); the held one itself read again — the
 * topic's newest record at a replica's start — is let through, so the registry learns the gate at once.
 */
@ApplicationScoped
public class GatePositions {

    /** Where a gate stands: its last accepted status's position and signed time. */
    record Position(long epoch, long seq, Instant signedAt) {
    }

    /** What a status is against the held position. */
    public enum Verdict {
        /** After the held position: apply and keep. */
        NEWER,
        /** Exactly the held position (the same status read again): let the registry hold it, nothing to store. */
        SAME,
        /** Below it: a replay or a status from before a later one. */
        REPLAY
    }

    private final Pool pool;
    private final Map<String, Position> held = new ConcurrentHashMap<>();
    private final Uni<Void> loaded;

    public GatePositions(Pool pool) {
        this.pool = pool;
        this.loaded = Uni.createFrom().deferred(this::load).memoize().indefinitely();
    }

    /** Completes once the positions kept in the database are held (the first call reads them). */
    public Uni<Void> loaded() {
        return loaded;
    }

    private Uni<Void> load() {
        return pool.query("select machine, gate_id, epoch, seq, published_at from gate_status").execute()
                .invoke(rows -> rows.forEach(r -> held.merge(r.getString(0) + "/" + r.getString(1),
                        new Position(r.getLong(2), r.getLong(3), r.getOffsetDateTime(4).toInstant()),
                        (a, b) -> after(b, a) ? b : a)))
                .replaceWithVoid();
    }

    /** Judges {@code status}, signed at {@code signedAt}, and holds its position when it is newer. */
    public Verdict judge(GateStatus status, Instant signedAt) {
        String key = status.machine() + "/" + status.gateId();
        Position incoming = new Position(status.epoch(), status.seq(), signedAt);
        Verdict[] verdict = new Verdict[1];
        held.compute(key, (k, current) -> {
            if (current == null || after(incoming, current)) {
                verdict[0] = Verdict.NEWER;
                return incoming;
            }
            verdict[0] = incoming.equals(current) ? Verdict.SAME : Verdict.REPLAY;
            return current;
        });
        return verdict[0];
    }

    /** Forgets a gate's position (its machine was removed). */
    public void forget(String machine, String gateId) {
        held.remove(machine + "/" + gateId);
    }

    /**
     * Whether {@code a} comes after {@code b}: by (epoch, seq) once the gate reports positions; a status without
     * one (epoch 0, an older release) after one with a position never does; between two without, the later
     * signed time.
     */
    static boolean after(Position a, Position b) {
        if (a.epoch() > 0 || b.epoch() > 0) {
            return a.epoch() > b.epoch() || a.epoch() == b.epoch() && a.seq() > b.seq();
        }
        return a.signedAt().isAfter(b.signedAt());
    }
}
