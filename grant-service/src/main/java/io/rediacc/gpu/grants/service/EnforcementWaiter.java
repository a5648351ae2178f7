package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Waits, after a commit, until every live gate of the machine reports an applied version at least
 * as new as the change: this is what makes "takes effect from the next Docker request" true for
 * the caller. Woken by {@link GateRegistry} when a status arrives; bounded by the caller's wait.
 */
@ApplicationScoped
public class EnforcementWaiter {

    private final GateRegistry gates;
    private final GrantsConfig config;
    private final GrantMetrics metrics;
    private final java.time.Clock clock;

    public EnforcementWaiter(GateRegistry gates, GrantsConfig config, GrantMetrics metrics, java.time.Clock clock) {
        this.clock = clock;
        this.gates = gates;
        this.config = config;
        this.metrics = metrics;
    }

    public Uni<Enforcement> await(String machine, long version, Duration wait) {
        Instant started = clock.instant();
        Enforcement first = evaluate(machine, version, wait, started);
        // no live gate: nothing will report, so waiting would only delay the same answer
        if (first.enforced() || wait.isZero() || gates.liveGates(machine, started).isEmpty()) {
            return Uni.createFrom().item(first).invoke(e -> record(started, e));
        }
        return Uni.createFrom().<Enforcement>emitter(emitter -> {
                    Runnable check = () -> {
                        Enforcement now = evaluate(machine, version, wait, clock.instant());
                        if (now.enforced()) {
                            emitter.complete(now);
                        }
                    };
                    gates.listen(machine, check);
                    emitter.onTermination(() -> gates.unlisten(machine, check));
                    check.run(); // a status may have arrived between the first look and listening
                })
                .ifNoItem().after(wait).recoverWithItem(() -> evaluate(machine, version, wait, clock.instant()))
                .invoke(e -> record(started, e));
    }

    private void record(Instant started, Enforcement enforcement) {
        metrics.enforcementWait(Duration.between(started, clock.instant()), enforcement.enforced());
    }

    Enforcement evaluate(String machine, long version, Duration wait, Instant now) {
        List<KnownGate> live = gates.liveGates(machine, now);
        if (live.isEmpty()) {
            return new Enforcement(false, "recorded at version " + version + " but not enforced: machine " + machine
                    + " has no live gate (none has reported on " + Topics.GATE_STATUS + " within "
                    + config.gateLivenessHeartbeats() + " heartbeats); the change takes effect once the machine's "
                    + "docker-gate runs and loads it", List.of());
        }
        List<KnownGate> lagging = live.stream().filter(g -> g.appliedVersion() < version).toList();
        String gateIds = live.stream().map(KnownGate::gateId).collect(Collectors.joining(", "));
        if (lagging.isEmpty()) {
            return new Enforcement(true, "enforced: every live gate of " + machine + " (" + gateIds
                    + ") applies version " + version + " or newer", List.of());
        }
        List<String> laggingGates = lagging.stream().map(KnownGate::gateId).toList();
        String behind = lagging.stream().map(g -> g.gateId() + " is at version " + g.appliedVersion())
                .collect(Collectors.joining(", "));
        String waited = wait.isZero() ? "without waiting (wait=0)" : "after waiting " + human(wait);
        return new Enforcement(false, "recorded at version " + version + " but not yet enforced " + waited
                + ": gate " + behind + "; it applies the change when it catches up", laggingGates);
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }
}
