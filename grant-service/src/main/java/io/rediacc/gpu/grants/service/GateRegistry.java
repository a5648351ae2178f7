package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.grants.config.GrantsConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every gate of the fleet last reported, in memory: each replica reads the whole gate-status
 * topic, so this needs no database round trip, and waiting callers are woken the moment a status
 * arrives instead of polling.
 */
@ApplicationScoped
public class GateRegistry {

    private final GrantsConfig config;
    private final Map<String, Map<String, KnownGate>> gatesByMachine = new ConcurrentHashMap<>();
    private final Map<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();
    /** Gates held (one consumer thread writes; the count only bounds the registry). */
    private final java.util.concurrent.atomic.AtomicInteger gateCount = new java.util.concurrent.atomic.AtomicInteger();

    public GateRegistry(GrantsConfig config) {
        this.config = config;
    }

    /** Records a gate's status and wakes whoever waits on its machine. */
    public void record(GateStatus status, Instant publishedAt) {
        record(status, publishedAt, Integer.MAX_VALUE);
    }

    /**
     * Records a gate's status unless it is a new gate and {@code maxGates} are known already: what a
     * topic says must not grow memory without bound. False when refused.
     */
    public boolean record(GateStatus status, Instant publishedAt, int maxGates) {
        Map<String, KnownGate> known = gatesByMachine.get(status.machine());
        boolean isNew = known == null || !known.containsKey(status.gateId());
        if (isNew && gateCount.get() >= maxGates) {
            return false;
        }
        gatesByMachine.computeIfAbsent(status.machine(), m -> new ConcurrentHashMap<>())
                .merge(status.gateId(), new KnownGate(status, publishedAt), GateRegistry::later);
        if (isNew) {
            gateCount.incrementAndGet();
        }
        notifyMachine(status.machine());
        return true;
    }

    /** The later of two statuses of one gate: by signed position, or the signed time for gates without one. */
    private static KnownGate later(KnownGate old, KnownGate fresh) {
        GateStatus a = old.status();
        GateStatus b = fresh.status();
        if (a.epoch() > 0 || b.epoch() > 0) {
            return b.after(a.epoch(), a.seq()) || b.epoch() == a.epoch() && b.seq() == a.seq() ? fresh : old;
        }
        return fresh.publishedAt().isBefore(old.publishedAt()) ? old : fresh;
    }

    /** Forgets a gate (its compacted status was deleted). */
    public void forget(String machine, String gateId) {
        Map<String, KnownGate> gates = gatesByMachine.get(machine);
        if (gates != null && gates.remove(gateId) != null) {
            gateCount.decrementAndGet();
        }
        notifyMachine(machine);
    }

    /** Every gate of a machine that has ever reported, live or not, by gate id. */
    public List<KnownGate> gates(String machine) {
        return gatesByMachine.getOrDefault(machine, Map.of()).values().stream()
                .sorted(Comparator.comparing(KnownGate::gateId)).toList();
    }

    public boolean live(KnownGate gate, Instant now) {
        return gate.live(now, config.gateLivenessHeartbeats(), config.defaultGateHeartbeat());
    }

    /** The live gates of a machine now. */
    public List<KnownGate> liveGates(String machine, Instant now) {
        return gates(machine).stream().filter(g -> live(g, now)).toList();
    }

    void listen(String machine, Runnable listener) {
        listeners.computeIfAbsent(machine, m -> ConcurrentHashMap.newKeySet()).add(listener);
    }

    void unlisten(String machine, Runnable listener) {
        listeners.computeIfPresent(machine, (m, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }

    private void notifyMachine(String machine) {
        Set<Runnable> waiting = listeners.get(machine);
        if (waiting != null) {
            waiting.forEach(Runnable::run);
        }
    }
}
