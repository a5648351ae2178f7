package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.GateStatus;

import java.time.Duration;
import java.time.Instant;

/**
 * The last status a gate published, with the time it was published: its signed {@code ce_time}, never the
 * Kafka record timestamp (unsigned), so a replayed status is as old as it really is and cannot keep a dead
 * gate live.
 */
public record KnownGate(GateStatus status, Instant publishedAt) {

    /** Live while the last status is younger than {@code heartbeats} of the gate's heartbeat. */
    public boolean live(Instant now, int heartbeats, Duration defaultHeartbeat) {
        Duration heartbeat = status.heartbeatSeconds() > 0
                ? Duration.ofSeconds(io.rediacc.gpu.contracts.events.RecordBounds.livenessHeartbeatSeconds(status.heartbeatSeconds()))
                : defaultHeartbeat;
        return publishedAt.plus(heartbeat.multipliedBy(heartbeats)).isAfter(now);
    }

    public String gateId() {
        return status.gateId();
    }

    public long appliedVersion() {
        return status.appliedVersion();
    }
}
