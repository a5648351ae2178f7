package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.RecordBounds;
import io.rediacc.gpu.contracts.identity.Identifiers;

import java.time.Duration;
import java.time.Instant;

/**
 * Reads the records the dashboard keeps (grant snapshots' versions, grant events, gate refusals) and
 * refuses what it cannot hold: a wrong key, an invalid machine or repo name, a time too far ahead,
 * text longer than {@link RecordBounds#MAX_TEXT}.
 */
final class ActivityRecordDecoder {

    private ActivityRecordDecoder() {
    }

    static GrantSnapshot grantSnapshot(String key, byte[] value) {
        GrantSnapshot s = RecordDecoder.read(value, GrantSnapshot.class);
        machine("grant snapshot", key, s.machine());
        return s;
    }

    static GrantEvent grantEvent(String key, byte[] value, Instant recordTime, Duration skew) {
        GrantEvent e = RecordDecoder.read(value, GrantEvent.class);
        machine("grant event", key, e.machine());
        if (e.id() == null || e.id().isBlank() || e.type() == null) {
            throw new RejectedRecordException("grant event of machine \"" + e.machine() + "\" has no id or type");
        }
        repo("grant event", e.repoName());
        at("grant event", e.at(), recordTime, skew);
        text("grant event", e.id(), e.device(), e.actor(), e.reason(), e.repoGuid());
        return e;
    }

    static GateDecision gateDecision(String key, byte[] value, Instant recordTime, Duration skew) {
        GateDecision d = RecordDecoder.read(value, GateDecision.class);
        machine("gate decision", key, d.machine());
        repo("gate decision", d.repoName());
        if (d.rule() == null || d.rule().isBlank() || d.message() == null) {
            throw new RejectedRecordException("gate decision of machine \"" + d.machine() + "\" has no rule or message");
        }
        at("gate decision", d.at(), recordTime, skew);
        text("gate decision", d.gateId(), d.repoGuid(), d.method(), d.endpoint(), d.rule(), d.device(), d.message(), d.fix());
        return d;
    }

    private static void machine(String what, String key, String machine) {
        if (!Identifiers.isMachine(machine)) {
            throw new RejectedRecordException(what + " names an invalid machine \"" + machine + "\"");
        }
        if (!machine.equals(key)) {
            throw new RejectedRecordException(DropReason.KEY_MISMATCH, what + " of machine \"" + machine + "\" was published under key \"" + key
                    + "\"; the key must be the machine name");
        }
    }

    private static void repo(String what, String repo) {
        if (!Identifiers.isRepoName(repo)) {
            throw new RejectedRecordException(what + " names an invalid repo \"" + repo + "\"");
        }
    }

    private static void at(String what, Instant at, Instant recordTime, Duration skew) {
        if (at == null) {
            throw new RejectedRecordException(what + " has no time (at)");
        }
        Instant limit = Instant.now().plus(skew);
        if (at.isAfter(limit) || recordTime.isAfter(limit)) {
            throw new RejectedRecordException(DropReason.FUTURE, what + " is dated " + at + ", more than " + skew
                    + " ahead of this service's clock");
        }
    }

    private static void text(String what, String... values) {
        for (String v : values) {
            if (v != null && v.length() > RecordBounds.MAX_TEXT) {
                throw new RejectedRecordException(what + " has a text field of " + v.length() + " characters; at most "
                        + RecordBounds.MAX_TEXT + " are kept");
            }
        }
    }
}
