package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.rediacc.gpu.gate.policy.HeadVerdict;
import io.rediacc.gpu.gate.policy.Refusal;
import io.rediacc.gpu.gate.policy.RefusalMessages;
import io.rediacc.gpu.gate.policy.RequestHead;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The HTTP side of a client connection: reads each request, has its head judged, streams or holds
 * its body as the judgement says, forwards it, and relays the daemon's answer. Requests are handled
 * one at a time; a pipelined next request waits in {@link #backlog}. A refused request never
 * reaches the daemon. A held body is decided by {@link BodyDecision}, an upload by {@link UploadRelay}.
 */
final class HttpExchanges {

    private static final Logger LOG = Logger.getLogger(HttpExchanges.class);
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ClientConnection conn;
    private final BodyDecision decision;
    private final UploadRelay uploads;
    private final int maxBody;
    private final ArrayDeque<Object> backlog = new ArrayDeque<>();
    /** The request being handled and its response; null between requests. */
    private Exchange ex;

    HttpExchanges(ClientConnection conn, BodyDecision decision, UploadRelay uploads) {
        this.conn = conn;
        this.decision = decision;
        this.uploads = uploads;
        this.maxBody = conn.plane.policy().maxBodyBytes();
    }

    /** The current exchange; null between requests. */
    Exchange current() {
        return ex;
    }

    /** The gate may still answer the current request itself (nothing of the daemon's answer went out). */
    boolean answerable() {
        return ex != null && ex.answerable();
    }

    /** The current request's body is being held for the policy. */
    boolean inspecting() {
        return ex != null && ex.mode == Exchange.Mode.INSPECT;
    }

    // ---------------------------------------------------------------- from the client

    /** A decoded piece of HTTP from the client: handled now, or queued behind the current exchange. */
    void fromClient(HttpObject msg) {
        if (!backlog.isEmpty() || (ex != null && ex.requestDone)) {
            backlog.add(msg);
            conn.reads.pause(ClientReads.Reason.BACKLOG, true);
            return;
        }
        handle(msg);
    }

    private void handle(HttpObject msg) {
        if (msg instanceof HttpRequest request) {
            if (ex != null) {
                // Cannot happen with Netty's decoder (a request follows the previous one's last content).
                ReferenceCountUtil.release(msg);
                conn.closeBoth();
                return;
            }
            startExchange(request);
            if (msg instanceof HttpContent content && !conn.closing() && ex != null) {
                onRequestContent(content);
            } else {
                ReferenceCountUtil.release(msg);
            }
            return;
        }
        if (msg instanceof HttpContent content) {
            if (ex == null) {
                content.release();
                return;
            }
            onRequestContent(content);
            return;
        }
        ReferenceCountUtil.release(msg);
    }

    private void startExchange(HttpRequest request) {
        conn.budget.releaseHead();
        conn.budget.enter(ConnectionBudget.Phase.BODY);
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            refuseFraming(head(request), "the request is not valid HTTP/1.1 and was not forwarded: "
                    + (cause == null ? "malformed request" : cause.getMessage()));
            return;
        }
        String framing = FramingCheck.problem(request);
        if (framing != null) {
            refuseFraming(head(request), framing);
            return;
        }
        if (request.protocolVersion().majorVersion() != 1) {
            // "PRI * HTTP/2.0" and the like: the bytes that follow are no HTTP/1.1 request.
            Refusal refusal = RefusalMessages.httpVersion(request.protocolVersion().text());
            conn.plane.recorder().refused(conn.repo, head(request), refusal);
            conn.markClosing();
            conn.releaseAll();
            conn.client().writeAndFlush(DockerErrors.refusal(refusal, true))
                    .addListener(ChannelFutureListener.CLOSE);
            conn.daemon.close();
            return;
        }
        ex = new Exchange(request, head(request));
        HeadVerdict verdict;
        try {
            // An un-versioned request goes on with the version the daemon would give it, and is judged as that.
            String versioned = conn.plane.policy().versionedTarget(ex.head, conn.repo, conn.plane.grants());
            if (versioned != null) {
                request.setUri(versioned);
                ex = new Exchange(request, head(request));
            }
            verdict = conn.plane.policy().onHead(ex.head, conn.repo, conn.plane.grants());
        } catch (RuntimeException e) {
            verdict = new HeadVerdict.Refuse(policyFailure(e));
        }
        if (verdict instanceof HeadVerdict.Pass) {
            decision.volumesMayGo(conn.plane.policy().removesVolumes(ex.head));
            ex.mode = Exchange.Mode.STREAM;
            answerExpectContinue(request);
            conn.daemon.send(request);
        } else if (verdict instanceof HeadVerdict.InspectBody) {
            startInspection(request, null);
        } else if (verdict instanceof HeadVerdict.InspectStoredContainer stored && stored.streamBody()) {
            uploads.start(ex, stored);
        } else if (verdict instanceof HeadVerdict.InspectStoredContainer stored) {
            startInspection(request, stored);
        } else if (verdict instanceof HeadVerdict.Refuse refuse) {
            refuse(refuse.refusal());
        } else {
            refuse(policyFailure(new IllegalStateException("unknown verdict " + verdict)));
        }
    }

    private void startInspection(HttpRequest request, HeadVerdict.InspectStoredContainer stored) {
        ex.mode = Exchange.Mode.INSPECT;
        ex.stored = stored;
        long declared = HttpUtil.getContentLength(request, -1L);
        if (declared > maxBody) {
            refuse(tooLarge());
            return;
        }
        answerExpectContinue(request);
        ex.body = conn.client().alloc().compositeBuffer(Integer.MAX_VALUE);
    }

    private void onRequestContent(HttpContent content) {
        if (content.decoderResult().isFailure()) {
            // A broken chunk: where this body ends (and the next request starts) is unknowable.
            Throwable cause = content.decoderResult().cause();
            content.release();
            Exchange broken = ex;
            ex = null;
            if (broken.responseStarted) {
                conn.closeBoth();
            } else {
                refuseFraming(broken.head, "the request body is not valid HTTP/1.1 framing and was not forwarded: "
                        + (cause == null ? "malformed body" : cause.getMessage()));
            }
            return;
        }
        boolean last = content instanceof LastHttpContent;
        switch (ex.mode) {
            case STREAM -> conn.daemon.send(content);
            case HOLD -> ex.held.add(content);
            case SPOOL -> uploads.spool(content);
            case INSPECT -> {
                ByteBuf data = content.content();
                if (ex.body.readableBytes() + (long) data.readableBytes() > maxBody) {
                    content.release();
                    refuse(tooLarge());
                } else if (!conn.budget.holdBody(data.readableBytes())) {
                    content.release();
                } else {
                    if (data.isReadable()) {
                        ex.body.addComponent(true, data.retain());
                    }
                    content.release();
                }
            }
            case DISCARD -> content.release();
        }
        if (!last || ex == null) {
            return;
        }
        ex.requestDone = true;
        conn.budget.enter(ConnectionBudget.Phase.RESPONSE);
        if (ex.mode == Exchange.Mode.INSPECT) {
            decision.decide(ex);
        } else if (ex.responseDone) {
            finishExchange();
        }
    }

    /** The client stopped sending (a half-close) before or in the middle of a request: nothing to finish. */
    void clientInputShut() {
        if (ex != null && ex.requestDone) {
            return; // the request is whole: its answer still goes out, then the connection ends
        }
        if (ex != null && (ex.mode == Exchange.Mode.INSPECT || ex.mode == Exchange.Mode.SPOOL) && !ex.responseStarted) {
            Refusal incomplete = RefusalMessages.incompleteBody();
            conn.plane.recorder().refused(conn.repo, ex.head, incomplete);
            conn.client().write(DockerErrors.refusal(incomplete, true));
        }
        conn.closeBoth();
    }

    // ---------------------------------------------------------------- answered by the gate

    /** Forwards the judged request: its head and body leave in one write. */
    void forward(Exchange decided, Object body) {
        decided.mode = Exchange.Mode.STREAM;
        conn.daemon.send(decided.request, false);
        conn.daemon.send(body);
    }

    /** Refuses the current request; it never reaches the daemon. The rest of its body is discarded. */
    void refuse(Refusal refusal) {
        conn.plane.recorder().refused(conn.repo, ex.head, refusal);
        respondLocally(refusal.status(), refusal.message(), refusal.fix());
    }

    /** Answers the current request from the gate; the rest of its body is read and discarded. */
    void respondLocally(int status, String message) {
        respondLocally(status, message, null);
    }

    private void respondLocally(int status, String message, String fix) {
        Exchange current = ex;
        current.mode = Exchange.Mode.DISCARD;
        dropBody(current);
        current.responseStarted = true;
        current.responseDone = true;
        boolean close = current.closeAfter || !HttpUtil.isKeepAlive(current.request);
        current.closeAfter = close;
        conn.client().writeAndFlush(DockerErrors.response(status, message, fix, close));
        if (current.requestDone) {
            finishExchange();
        }
    }

    /** The framing of the request is unknowable: answer and close, since the next request's start is unknowable too. */
    private void refuseFraming(RequestHead head, String message) {
        Refusal refusal = RefusalMessages.framing(message);
        conn.plane.recorder().refused(conn.repo, head, refusal);
        conn.markClosing();
        if (ex != null) {
            dropBody(ex);
        }
        ex = null;
        conn.releaseAll();
        conn.client().writeAndFlush(DockerErrors.refusal(refusal, true)).addListener(ChannelFutureListener.CLOSE);
        conn.daemon.close();
    }

    /**
     * The current request is refused before any of it reached the daemon, and the connection ends:
     * the client is answered if nothing was answered yet (the rest of its body is unknowable to skip).
     */
    void refuseAndClose(Refusal refusal) {
        conn.plane.recorder().refused(conn.repo, ex.head, refusal);
        boolean answered = ex.responseStarted;
        conn.markClosing();
        Exchange aborted = ex;
        ex = null;
        dropBody(aborted);
        conn.releaseAll();
        conn.daemon.close();
        conn.daemon.releasePending();
        if (answered) {
            conn.client().close();
        } else {
            conn.client().writeAndFlush(DockerErrors.refusal(refusal, true))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** A limit of {@link ConnectionBudget} was passed while reading the client. */
    void overBudget(int status, String message) {
        if (ex != null && !ex.responseStarted && ex.mode == Exchange.Mode.INSPECT) {
            // The head is known: answer it, discard the rest of its body, then close.
            ex.closeAfter = true;
            respondLocally(status, message);
        } else {
            conn.failConnection(status, message);
        }
    }

    /** The connection is failing: the current exchange ends unanswered (see {@link ClientConnection#failConnection}). */
    void forget() {
        ex = null;
    }

    private void finishExchange() {
        Exchange done = ex;
        ex = null;
        boolean close = done.closeAfter || !HttpUtil.isKeepAlive(done.request) || conn.clientInputShut();
        if (close) {
            conn.markClosing();
            conn.releaseAll();
            ClientConnection.closeAfterFlush(conn.client());
            conn.daemon.close();
            return;
        }
        while (!backlog.isEmpty() && !conn.closing() && !conn.splice.active() && (ex == null || !ex.requestDone)) {
            handle((HttpObject) backlog.poll());
        }
        if (ex == null && !conn.closing() && !conn.splice.active()) {
            conn.budget.enter(ConnectionBudget.Phase.IDLE);
        }
        if (backlog.isEmpty()) {
            conn.reads.pause(ClientReads.Reason.BACKLOG, false);
        }
    }

    // ---------------------------------------------------------------- from the daemon

    void onDaemonResponse(HttpResponse response) {
        if (ex == null || ex.responseDone || ex.mode != Exchange.Mode.STREAM || response.decoderResult().isFailure()) {
            // An answer to nothing, or one we cannot read: the connection's framing is lost.
            conn.closeBoth();
            return;
        }
        int code = response.status().code();
        if (code == 101 || isRawStream(response)) {
            if (!backlog.isEmpty()) {
                // The client sent bytes before the daemon answered; they were read as HTTP and cannot be replayed.
                ReferenceCountUtil.release(response);
                conn.closeBoth();
                return;
            }
            ex = null;
            conn.splice.start(response);
            return;
        }
        if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
            return; // 100 Continue was already answered by the gate itself
        }
        if (ex.pinToken != null) {
            String token = ex.pinToken;
            ex.pinToken = null;
            try {
                conn.plane.policy().settlePins(conn.repo, token,
                        response.status().codeClass() == HttpStatusClass.SUCCESS);
            } catch (RuntimeException e) {
                LOG.warnf("pins %s of repo %s: %s (the next sweep settles them)", token, conn.repo.name(), e.getMessage());
            }
        }
        ex.responseStarted = true;
        if (!HttpUtil.isKeepAlive(response)) {
            ex.closeAfter = true;
        }
        if (endsWithClose(response)) {
            ex.closeAfter = true;
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        conn.toClient(response);
    }

    void onDaemonContent(HttpContent content) {
        if (ex == null || !ex.responseStarted || ex.responseDone) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        conn.toClient(content);
        if (last) {
            ex.responseDone = true;
            if (ex.requestDone) {
                finishExchange();
            }
        }
    }

    /** The daemon could not be connected for the current request. */
    void daemonUnreachable(String message) {
        if (ex != null && !ex.responseStarted) {
            respondLocally(502, message);
        } else {
            conn.closeBoth();
        }
    }

    /** The daemon closed its connection while not hijacked. */
    void daemonClosed() {
        if (ex != null && ex.mode == Exchange.Mode.STREAM) {
            if (!ex.responseStarted) {
                respondLocally(502, "the Docker daemon of repo " + conn.repo.name()
                        + " closed the connection without answering");
            } else if (!ex.responseDone) {
                conn.markClosing();
                ClientConnection.closeAfterFlush(conn.client());
            }
        }
    }

    /** Pre-upgrade attach answers 200 with a raw stream, no length and no chunking: a hijack too. */
    private boolean isRawStream(HttpResponse response) {
        if (response.status().code() != 200 || !HttpMethod.POST.equals(ex.request.method())
                || HttpUtil.isContentLengthSet(response) || HttpUtil.isTransferEncodingChunked(response)) {
            return false;
        }
        String type = response.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
        return type.startsWith("application/vnd.docker.raw-stream")
                || type.startsWith("application/vnd.docker.multiplexed-stream");
    }

    private boolean endsWithClose(HttpResponse response) {
        int code = response.status().code();
        return !HttpMethod.HEAD.equals(ex.request.method()) && code != 204 && code != 304
                && !HttpUtil.isContentLengthSet(response) && !HttpUtil.isTransferEncodingChunked(response);
    }

    // ---------------------------------------------------------------- plumbing

    void answerExpectContinue(HttpRequest request) {
        if (HttpUtil.is100ContinueExpected(request)) {
            request.headers().remove(HttpHeaderNames.EXPECT);
            // Written below the HTTP encoder: an interim answer must not count as the request's response.
            conn.client().pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(CONTINUE));
        }
    }

    /** Frees the exchange's held body and gives its bytes back to the budgets. */
    void dropBody(Exchange e) {
        e.releaseBody();
        conn.budget.releaseBody();
    }

    /** The connection ends: pipelined requests and the current body are dropped. */
    void releaseAll() {
        while (!backlog.isEmpty()) {
            ReferenceCountUtil.release(backlog.poll());
        }
        conn.daemon.releasePending();
        if (ex != null) {
            dropBody(ex);
        }
    }

    private Refusal tooLarge() {
        return RefusalMessages.bodyTooLargeToInspect(maxBody);
    }

    /** The policy threw: the request is refused, never let through (the gate fails closed). */
    Refusal policyFailure(RuntimeException e) {
        LOG.errorf(e, "policy failed on a request of repo %s; refusing it", conn.repo.name());
        return RefusalMessages.gateError("the gate could not evaluate this request and refused it");
    }

    static RequestHead head(HttpRequest request) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> header : request.headers()) {
            headers.computeIfAbsent(header.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(header.getValue());
        }
        Map<String, List<String>> frozen = new LinkedHashMap<>();
        headers.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
        return new RequestHead(request.method().name(), request.uri(), Collections.unmodifiableMap(frozen));
    }
}
