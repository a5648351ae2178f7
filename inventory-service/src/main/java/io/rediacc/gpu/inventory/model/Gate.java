package io.rediacc.gpu.inventory.model;

import java.time.Instant;

/**
 * The latest status one gate reported, as the {@code gate} table holds it ({@code GateRepository}). Independent of
 * the machine's row: a gate may report before its machine's first inventory arrives.
 */
public class Gate {

    /** {@code Topics.gateStatusKey(machine, gateId)}, the record key on the gate-status topic. */
    public String key;
    public String machine;
    public String gateId;
    public long appliedVersion;
    public String state;
    public int heartbeatSeconds;
    public Instant syncedAt;

    /** What orders this gate's reports: syncedAt, or the record's timestamp when the gate sent none. */
    public Instant reportedAt;

    /** Latest time the gate was heard from (heartbeats that repeat a report move only this). */
    public Instant lastSeenAt;

    /** {@code lastSeenAt + liveHeartbeats × heartbeatSeconds}: after this the gate no longer counts. */
    public Instant liveUntil;

    /** JSON array of the repos the gate serves. */
    public String reposJson;

    /** JSON array of the repo daemons the gate verified ({@code GateStatus.daemons}). */
    public String daemonsJson;

    /** The last accepted status's position: the gate's start ({@code GateStatus.epoch}), 0 for an older gate. */
    public long epoch;

    /** The last accepted status's sequence within its epoch. */
    public long seq;
}
