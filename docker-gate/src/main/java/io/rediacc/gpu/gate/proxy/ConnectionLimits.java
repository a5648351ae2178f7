package io.rediacc.gpu.gate.proxy;

import java.time.Duration;

/**
 * What one client may hold of the gate, so that no repo's clients (slow, idle or hostile) can
 * take the gate from the others: read timeouts, connection caps and a cap on the bytes of
 * unfinished requests the gate holds in memory. Every limit is answered with a Docker-format
 * error where HTTP allows an answer.
 *
 * @param headerTimeout          a request head must be complete this long after its first byte (or after the connection
 *                               opened): 408
 * @param bodyTimeout            an inspected body must be complete this long after its head; a streamed body may pause
 *                               this long at most (not counted while the daemon holds the gate back): 408
 * @param idleTimeout            a keep-alive connection with no request in progress is closed after this long; hijacked
 *                               connections (attach, exec start) and responses still streaming (events, logs -f, wait)
 *                               are not idle
 * @param maxPerRepo             open connections per repo; more are answered 429
 * @param maxTotal               open connections of all repos together; more are answered 503
 * @param maxPendingBytesPerRepo bytes of unfinished request heads and inspected bodies one repo's connections may hold: 429
 * @param maxPendingBytes        the same for all repos together: 503
 * @param maxUploadBytes         bytes of one {@code docker cp} upload the gate holds on disk until all of it is judged: 413
 */
public record ConnectionLimits(Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout, int maxPerRepo,
                               int maxTotal, long maxPendingBytesPerRepo, long maxPendingBytes, long maxUploadBytes) {

    /** The default of {@code gate.connections.max-upload-bytes}: 4 GiB. */
    public static final long DEFAULT_MAX_UPLOAD_BYTES = 4L << 30;

    /** The defaults of {@code gate.connections.*}. */
    public static final ConnectionLimits DEFAULTS = new ConnectionLimits(Duration.ofSeconds(10), Duration.ofSeconds(60),
            Duration.ofSeconds(120), 512, 4096, 8L << 20, 32L << 20);

    /** The limits with the default upload limit. */
    public ConnectionLimits(Duration headerTimeout, Duration bodyTimeout, Duration idleTimeout, int maxPerRepo,
                            int maxTotal, long maxPendingBytesPerRepo, long maxPendingBytes) {
        this(headerTimeout, bodyTimeout, idleTimeout, maxPerRepo, maxTotal, maxPendingBytesPerRepo, maxPendingBytes,
                DEFAULT_MAX_UPLOAD_BYTES);
    }

    /** The limits {@code gate.connections.*} configure, validated. */
    public static ConnectionLimits of(io.rediacc.gpu.gate.config.GateConfig.Connections c) {
        return new ConnectionLimits(c.headerTimeout(), c.bodyTimeout(), c.idleTimeout(), c.maxPerRepo(), c.maxTotal(),
                c.maxPendingBytesPerRepo(), c.maxPendingBytes(), c.maxUploadBytes());
    }

    public ConnectionLimits {
        requirePositive(headerTimeout, "header-timeout");
        requirePositive(bodyTimeout, "body-timeout");
        requirePositive(idleTimeout, "idle-timeout");
        if (maxPerRepo < 1 || maxTotal < maxPerRepo) {
            throw new IllegalArgumentException("gate.connections.max-per-repo (" + maxPerRepo
                    + ") must be at least 1 and at most gate.connections.max-total (" + maxTotal + ")");
        }
        if (maxPendingBytesPerRepo < 1 || maxPendingBytes < maxPendingBytesPerRepo) {
            throw new IllegalArgumentException("gate.connections.max-pending-bytes-per-repo (" + maxPendingBytesPerRepo
                    + ") must be at least 1 and at most gate.connections.max-pending-bytes (" + maxPendingBytes + ")");
        }
        if (maxUploadBytes < 1) {
            throw new IllegalArgumentException("gate.connections.max-upload-bytes must be positive, not " + maxUploadBytes);
        }
    }

    /** A repo must be able to send one body of the largest size the gate inspects. */
    public void checkFits(int maxBodyBytes) {
        if (maxPendingBytesPerRepo < maxBodyBytes) {
            throw new IllegalArgumentException("gate.connections.max-pending-bytes-per-repo (" + maxPendingBytesPerRepo
                    + ") is below gate.max-body-bytes (" + maxBodyBytes + "): no body of that size could be inspected");
        }
    }

    private static void requirePositive(Duration d, String key) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("gate.connections." + key + " must be positive, not " + d);
        }
    }
}
