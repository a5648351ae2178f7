package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.rediacc.gpu.gate.policy.HeadVerdict;
import io.rediacc.gpu.gate.policy.RequestHead;

import java.util.ArrayDeque;

/** One request of a client connection and its response, from its head to the end of its answer. */
final class Exchange {

    /**
     * Where the request's body goes. STREAM: to the daemon as it arrives; INSPECT: buffered for the
     * policy; HOLD: an upload waits, unread, for the judgement of its container; SPOOL: an upload is
     * judged into {@link #spool} and goes to the daemon only once all of it is judged; DISCARD: the
     * request was answered by the gate, the rest of its body is read and dropped.
     */
    enum Mode { STREAM, INSPECT, HOLD, SPOOL, DISCARD }

    final HttpRequest request;
    final RequestHead head;
    Mode mode = Mode.STREAM;
    HeadVerdict.InspectStoredContainer stored;
    /** The token of the pins this request's rewritten body mounts; settled by the daemon's answer. */
    String pinToken;
    CompositeByteBuf body;
    /** An upload ({@code PUT /containers/{id}/archive}) being judged; handed to the daemon's write once judged. */
    UploadSpool spool;
    /** Upload content that arrived while its container was being judged (client reads are paused). */
    ArrayDeque<HttpContent> held;
    // Both halves are tracked apart: a response may end before its request does (a refusal while the
    // body still arrives), and the next request may start only when both have.
    boolean requestDone;
    boolean responseStarted;
    boolean responseDone;
    /** The connection ends after this exchange (the client or the daemon asked for it, or a limit did). */
    boolean closeAfter;

    Exchange(HttpRequest request, RequestHead head) {
        this.request = request;
        this.head = head;
    }

    /** The gate may still answer it itself: nothing of the daemon's answer has gone to the client. */
    boolean answerable() {
        return !responseStarted;
    }

    /** Frees what the request's body holds in memory or on disk (not the budget: see {@link ConnectionBudget}). */
    void releaseBody() {
        if (held != null) {
            while (!held.isEmpty()) {
                held.poll().release();
            }
        }
        if (body != null) {
            body.release();
            body = null;
        }
        if (spool != null) {
            spool.close();
            spool = null;
        }
    }
}
