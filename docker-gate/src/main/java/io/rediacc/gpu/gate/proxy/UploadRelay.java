package io.rediacc.gpu.gate.proxy;

import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.rediacc.gpu.gate.policy.HeadVerdict;
import io.rediacc.gpu.gate.policy.Refusal;
import io.rediacc.gpu.gate.policy.RefusalMessages;
import io.rediacc.gpu.gate.policy.Verdict;

import java.io.IOException;
import java.util.ArrayDeque;

/**
 * {@code docker cp} into a container: the container is judged like a start (its binds pinned, its
 * devices granted) before any of the upload is read; then the whole upload is judged into a spool
 * ({@link UploadSpool}, {@link io.rediacc.gpu.gate.policy.TarStreamCheck}) and only a fully judged
 * archive goes to the container, by its full ID: the daemon unpacks entries as they arrive, so a
 * refusal must come before the first byte reaches it.
 */
final class UploadRelay {

    private final ClientConnection conn;
    private final BodyDecision decision;

    UploadRelay(ClientConnection conn, BodyDecision decision) {
        this.conn = conn;
        this.decision = decision;
    }

    /** The head of an upload into {@code stored}'s container arrived: its body waits, unread, for the container's judgement. */
    void start(Exchange ex, HeadVerdict.InspectStoredContainer stored) {
        ex.mode = Exchange.Mode.HOLD;
        ex.stored = stored;
        ex.held = new ArrayDeque<>();
        conn.reads.pause(ClientReads.Reason.LOOKUP, true);
        decision.judgeStoredContainer(ex, true, "to check it before the upload", "upload", (fullId, verdict) -> {
            if (!(verdict instanceof Verdict.Allow)) {
                conn.exchanges.refuse(verdict instanceof Verdict.Deny deny ? deny.refusal()
                        : conn.exchanges.policyFailure(new IllegalStateException("an upload's container uses named volumes")));
                return;
            }
            ex.request.setUri(stored.targetFor(fullId));
            try {
                ex.spool = UploadSpool.open(conn.plane.limits().maxUploadBytes());
            } catch (IOException e) {
                conn.exchanges.refuse(cannotHold(e));
                return;
            }
            ex.mode = Exchange.Mode.SPOOL;
            conn.exchanges.answerExpectContinue(ex.request);
            ArrayDeque<HttpContent> held = ex.held;
            ex.held = null;
            while (!held.isEmpty() && conn.exchanges.current() == ex && !conn.closing()) {
                spool(held.poll());
            }
            while (!held.isEmpty()) {
                held.poll().release();
            }
        });
    }

    /** One piece of the current upload into its spool; a refusal answers and ends the connection, the last piece forwards it. */
    void spool(HttpContent content) {
        Exchange ex = conn.exchanges.current();
        boolean last = content instanceof LastHttpContent;
        Refusal refused;
        try {
            refused = ex.spool.append(content.content());
            if (refused == null && last) {
                refused = ex.spool.finish();
            }
        } catch (IOException e) {
            refused = cannotHold(e);
        } finally {
            content.release();
        }
        if (refused != null) {
            // Refused before any of it reached the daemon; the rest of the body is unknowable to skip.
            conn.exchanges.refuseAndClose(refused);
        } else if (last) {
            forward(ex);
        }
    }

    /** The whole upload was judged: it goes to the daemon from the spool, with its length now known. */
    private void forward(Exchange ex) {
        UploadSpool spool = ex.spool;
        ex.spool = null; // the daemon's write owns it now, and closes it when done
        HttpChunkedInput body;
        try {
            body = spool.body();
        } catch (IOException io) {
            spool.close();
            conn.exchanges.refuseAndClose(RefusalMessages.gateError(
                    "the gate could not read back the judged upload (" + io.getMessage() + "), so it refuses it"));
            return;
        }
        ex.request.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        HttpUtil.setContentLength(ex.request, spool.size());
        conn.exchanges.forward(ex, body);
    }

    private static Refusal cannotHold(IOException e) {
        return RefusalMessages.gateError(
                "the gate could not hold the upload to judge it (" + e.getMessage() + "), so it refuses it");
    }
}
