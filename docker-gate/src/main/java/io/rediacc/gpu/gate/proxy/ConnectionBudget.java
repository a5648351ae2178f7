package io.rediacc.gpu.gate.proxy;

import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * What one client connection may take of the gate ({@link ConnectionLimits}): how long each phase
 * of a request may last, and the bytes of unfinished requests it holds against its repo's and the
 * gate's {@link Budget}. A limit that runs out is answered (408, 429, 503) where HTTP allows an
 * answer, and the connection closed; the exchange decides how ({@link HttpExchanges#overBudget}).
 */
final class ConnectionBudget {

    /** Where the connection is, for its read timeouts. */
    enum Phase { HEAD, BODY, RESPONSE, IDLE, RAW }

    private static final long NO_DEADLINE = Long.MAX_VALUE;

    private final ClientConnection conn;
    private final ConnectionLimits limits;
    private final Budget repoBudget;
    private final Budget gateBudget;

    private Phase phase = Phase.HEAD;
    private long phaseStart = System.nanoTime();
    private long lastRead = phaseStart;
    /** Bytes of the request head being read, held against both budgets until the head is complete. */
    private long heldHead;
    /** Bytes of the inspected body, held against both budgets until it is judged or dropped. */
    private long heldBody;
    private ScheduledFuture<?> timer;
    private long timerAt = NO_DEADLINE;

    ConnectionBudget(ClientConnection conn, ConnectionLimits limits, Budget repoBudget, Budget gateBudget) {
        this.conn = conn;
        this.limits = limits;
        this.repoBudget = repoBudget;
        this.gateBudget = gateBudget;
    }

    void enter(Phase next) {
        phase = next;
        phaseStart = System.nanoTime();
        lastRead = phaseStart;
        if (next == Phase.RAW && timer != null) {
            timer.cancel(false);
            timer = null;
            timerAt = NO_DEADLINE;
        }
        arm();
    }

    /** The daemon stopped holding the client back: that pause was not the client's, so its body clock restarts. */
    void clientReadsResumed() {
        lastRead = System.nanoTime();
        arm();
    }

    /** The connection ended: no timer fires for it any more. */
    void stop() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** When the current phase runs out, in System.nanoTime() terms; {@link #NO_DEADLINE} when it cannot. */
    private long deadline() {
        return switch (phase) {
            case HEAD -> phaseStart + limits.headerTimeout().toNanos();
            case IDLE -> phaseStart + limits.idleTimeout().toNanos();
            case BODY -> conn.exchanges.inspecting() ? phaseStart + limits.bodyTimeout().toNanos()
                    : conn.reads.pausedFor(ClientReads.Reason.BACKPRESSURE) ? NO_DEADLINE
                    : lastRead + limits.bodyTimeout().toNanos();
            case RESPONSE, RAW -> NO_DEADLINE;
        };
    }

    /** One timer per connection, moved only earlier; when it fires early it looks again. */
    private void arm() {
        long at = deadline();
        if (at == NO_DEADLINE || conn.client() == null || (timer != null && timerAt <= at)) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        timerAt = at;
        timer = conn.client().eventLoop().schedule(this::onTimer, Math.max(0, at - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    private void onTimer() {
        timer = null;
        timerAt = NO_DEADLINE;
        if (conn.closing() || conn.splice.active()) {
            return;
        }
        long at = deadline();
        if (at == NO_DEADLINE) {
            return;
        }
        if (System.nanoTime() < at) {
            arm();
            return;
        }
        switch (phase) {
            case HEAD -> conn.failConnection(408, "the request head did not arrive within "
                    + limits.headerTimeout().toSeconds()
                    + " s (gate.connections.header-timeout); the connection was closed");
            case IDLE -> conn.closeBoth(); // an idle keep-alive connection ends without an answer, as in any HTTP server
            case BODY -> {
                String message = "the request body did not arrive within " + limits.bodyTimeout().toSeconds()
                        + " s (gate.connections.body-timeout); it was not forwarded and the connection was closed";
                if (conn.exchanges.answerable()) {
                    conn.failConnection(408, message);
                } else {
                    conn.closeBoth();
                }
            }
            default -> {
            }
        }
    }

    /** Bytes read from the client; false when holding them would pass a limit (the connection is then answered). */
    boolean clientBytes(int bytes) {
        lastRead = System.nanoTime();
        if (phase == Phase.IDLE) {
            enter(Phase.HEAD);
        }
        if (phase != Phase.HEAD || bytes == 0) {
            return true;
        }
        if (!hold(bytes)) {
            return false;
        }
        heldHead += bytes;
        return true;
    }

    /** Bytes of a body held for inspection; false when holding them would pass a limit (the request is then answered). */
    boolean holdBody(int bytes) {
        if (!hold(bytes)) {
            return false;
        }
        heldBody += bytes;
        return true;
    }

    /** Takes {@code bytes} from the repo's and the gate's budgets, or answers the request 429/503. */
    private boolean hold(long bytes) {
        if (!repoBudget.tryHold(bytes)) {
            conn.exchanges.overBudget(429, "repo " + conn.repo.name()
                    + " has more unfinished requests than the gate holds for one repo ("
                    + repoBudget.maxPending + " bytes, gate.connections.max-pending-bytes-per-repo); finish or close"
                    + " the others and retry");
            return false;
        }
        if (!gateBudget.tryHold(bytes)) {
            repoBudget.release(bytes);
            conn.exchanges.overBudget(503, "the gate holds as many unfinished requests as it can ("
                    + gateBudget.maxPending + " bytes, gate.connections.max-pending-bytes); retry shortly");
            return false;
        }
        return true;
    }

    /** The head is complete (or the connection ended): its bytes no longer count as unfinished. */
    void releaseHead() {
        if (heldHead > 0) {
            repoBudget.release(heldHead);
            gateBudget.release(heldHead);
            heldHead = 0;
        }
    }

    /** The inspected body was judged or dropped: its bytes no longer count as unfinished. */
    void releaseBody() {
        if (heldBody > 0) {
            repoBudget.release(heldBody);
            gateBudget.release(heldBody);
            heldBody = 0;
        }
    }
}
