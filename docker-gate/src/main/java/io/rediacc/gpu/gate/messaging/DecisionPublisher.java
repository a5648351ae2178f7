package io.rediacc.gpu.gate.messaging;

import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.contracts.events.Topics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Publishes refusals to {@code gpu.gate-decisions.v1}, rate-limited per repo so a client looping
 * on a refused request cannot flood the topic (metrics still count every refusal).
 */
public final class DecisionPublisher {

    private final GateEventsProducer producer;
    private final int burst;
    private final double perSecond;
    private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();

    public DecisionPublisher(GateEventsProducer producer, int burst, double perSecond) {
        this.producer = producer;
        this.burst = burst;
        this.perSecond = perSecond;
    }

    /** Returns false when the decision was not published (rate limit or full queue). */
    public boolean publish(GateDecision decision) {
        long now = System.nanoTime();
        TokenBucket bucket = buckets.computeIfAbsent(decision.repoGuid(), g -> new TokenBucket(burst, perSecond, now));
        if (!bucket.tryTake(now)) {
            return false;
        }
        return producer.send(Topics.GATE_DECISIONS_TOPIC, decision.machine(),
                decision.machine() + "/" + decision.repoName(), decision);
    }
}
