package io.rediacc.gpu.inventory.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/**
 * The latest status one gate reported. Independent of {@link Machine}: a gate may report before
 * its machine's first inventory arrives.
 */
@Entity
@Table(name = "gate")
public class Gate {

    /** {@code Topics.gateStatusKey(machine, gateId)}, the record key on the gate-status topic. */
    @Id
    @Column(name = "gate_key")
    public String key;

    @Column(name = "machine")
    public String machine;

    @Column(name = "gate_id")
    public String gateId;

    @Column(name = "applied_version")
    public long appliedVersion;

    @Column(name = "state")
    public String state;

    @Column(name = "heartbeat_seconds")
    public int heartbeatSeconds;

    @Column(name = "synced_at")
    public Instant syncedAt;

    /** What orders this gate's reports: syncedAt, or the record's timestamp when the gate sent none. */
    @Column(name = "reported_at")
    public Instant reportedAt;

    /** Latest time the gate was heard from (heartbeats that repeat a report move only this). */
    @Column(name = "last_seen_at")
    public Instant lastSeenAt;

    /** {@code lastSeenAt + liveHeartbeats × heartbeatSeconds}: after this the gate no longer counts. */
    @Column(name = "live_until")
    public Instant liveUntil;

    /** JSON array of the repos the gate serves. */
    @Column(name = "repos_json")
    public String reposJson;

    /** JSON array of the repo daemons the gate verified ({@code GateStatus.daemons}). */
    @Column(name = "daemons_json")
    public String daemonsJson;

    /** The last accepted status's position: the gate's start ({@code GateStatus.epoch}), 0 for an older gate. */
    @Column(name = "epoch")
    public long epoch;

    /** The last accepted status's sequence within its epoch. */
    @Column(name = "seq")
    public long seq;
}
