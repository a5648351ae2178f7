package io.rediacc.gpu.gate.messaging;

/** A token bucket: {@code burst} events at once, then {@code perSecond} on average. */
final class TokenBucket {

    private final double capacity;
    private final double perNano;
    private double tokens;
    private long last;

    TokenBucket(int burst, double perSecond, long nowNanos) {
        this.capacity = Math.max(1, burst);
        this.perNano = Math.max(0, perSecond) / 1_000_000_000d;
        this.tokens = capacity;
        this.last = nowNanos;
    }

    synchronized boolean tryTake(long nowNanos) {
        tokens = Math.min(capacity, tokens + (nowNanos - last) * perNano);
        last = nowNanos;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
