package io.rediacc.gpu.gate.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.policy.GatePolicy;
import io.rediacc.gpu.gate.policy.HeadVerdict;
import io.rediacc.gpu.gate.policy.Refusal;
import io.rediacc.gpu.gate.policy.RefusalMessages;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.RequestHead;
import io.rediacc.gpu.gate.policy.StoredVolume;
import io.rediacc.gpu.gate.policy.Verdict;
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
 * One client connection to a repo's endpoint, and its one connection to the repo's daemon.
 *
 * <p>Requests are handled one at a time (a pipelined next request waits in {@link #backlog}).
 * Each request head goes to the policy first; what passes streams to the daemon as it arrives,
 * what needs its body inspected is held (up to the policy's limit) until it is decided, and a
 * refused request never reaches the daemon. When the daemon answers a hijack (attach, exec
 * start: {@code 101 UPGRADED} or {@code 200} with a raw stream), both HTTP codecs are removed and
 * bytes are spliced both ways, half-close included.
 *
 * <p>Both channels run on the same event loop, so no state here needs locking.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = Logger.getLogger(ClientConnection.class);
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * STREAM: to the daemon as it arrives; INSPECT: buffered for the policy; HOLD: an upload waits,
     * unread, for the judgement of its container; SPOOL: an upload is judged into {@link Exchange#spool}
     * and goes to the daemon only once all of it is judged; DISCARD.
     */
    private enum Mode { STREAM, INSPECT, HOLD, SPOOL, DISCARD }

    /** Where the connection is, for its read timeouts (see {@link ConnectionLimits}). */
    private enum Phase { HEAD, BODY, RESPONSE, IDLE, RAW }

    private static final long NO_DEADLINE = Long.MAX_VALUE;

    /** One request and its response. */
    private static final class Exchange {
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
        boolean requestDone;
        boolean responseStarted;
        boolean responseDone;
        boolean closeAfter;

        Exchange(HttpRequest request, RequestHead head) {
            this.request = request;
            this.head = head;
        }
    }

    private final DataPlane plane;
    private final RepoIdentity repo;
    private final SocketEndpoint daemonEndpoint;
    private final DaemonLookups lookups;
    private DaemonLookups.Pool lookupPool;
    private final int maxBody;

    private Channel client;
    private Channel daemon;
    private boolean daemonConnecting;
    private final ArrayDeque<Object> daemonPending = new ArrayDeque<>();
    private final ArrayDeque<Object> backlog = new ArrayDeque<>();
    private Exchange ex;
    private boolean raw;
    private boolean switching;
    private final ArrayDeque<ByteBuf> rawToClient = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> rawToDaemon = new ArrayDeque<>();
    private boolean closing;
    private boolean clientInputShut;
    private boolean daemonInputShut;
    private boolean pausedForBacklog;
    private boolean pausedForBackpressure;
    private boolean pausedForLookup;
    /** Written to the client and not yet flushed: flushed once per read of the daemon's side. */
    private boolean clientFlushPending;

    private final ConnectionLimits limits;
    private final Budget repoBudget;
    private final Budget gateBudget;
    private Phase phase = Phase.HEAD;
    private long phaseStart = System.nanoTime();
    private long lastRead = phaseStart;
    private long heldHead;
    private long heldBody;
    private io.netty.util.concurrent.ScheduledFuture<?> timer;
    private long timerAt = NO_DEADLINE;

    ClientConnection(DataPlane plane, RepoIdentity repo, SocketEndpoint daemonEndpoint, DaemonLookups lookups,
                     Budget repoBudget, Budget gateBudget) {
        this.plane = plane;
        this.repo = repo;
        this.daemonEndpoint = daemonEndpoint;
        this.lookups = lookups;
        this.maxBody = plane.policy().maxBodyBytes();
        this.limits = plane.limits();
        this.repoBudget = repoBudget;
        this.gateBudget = gateBudget;
    }

    /** Sees the raw bytes before the HTTP decoder: the first byte of a head, and the bytes a head holds. */
    ChannelInboundHandlerAdapter rawReads() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ByteBuf buf && !raw && !closing && !rawBytes(buf.readableBytes())) {
                    buf.release();
                    return;
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    static HttpServerCodec codec() {
        return new HttpServerCodec(DataPlane.requestDecoderConfig());
    }

    // ---------------------------------------------------------------- client side events

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        client = ctx.channel();
        enter(Phase.HEAD);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (raw) {
            toDaemonRaw(msg);
            return;
        }
        if (!(msg instanceof HttpObject)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!backlog.isEmpty() || (ex != null && ex.requestDone)) {
            backlog.add(msg);
            pauseForBacklog(true);
            return;
        }
        handle((HttpObject) msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            clientInputShut = true;
            if (raw) {
                shutdownOutputAfterFlush(daemon);
                if (daemonInputShut) {
                    closeBoth();
                }
            } else if (ex == null || !ex.requestDone) {
                // The client stopped sending before or in the middle of a request: nothing to finish.
                if (ex != null && (ex.mode == Mode.INSPECT || ex.mode == Mode.SPOOL) && !ex.responseStarted) {
                    Refusal incomplete = RefusalMessages.incompleteBody();
                    plane.recorder().refused(repo, ex.head, incomplete);
                    client.write(DockerErrors.refusal(incomplete, true));
                }
                closeBoth();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (daemon != null && client.isWritable()) {
            daemon.config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        releaseAll();
        releaseHead();
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (daemon != null) {
            closeAfterFlush(daemon);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debugf("client connection of repo %s failed: %s", repo.name(), cause.toString());
        closeBoth();
    }

    // ---------------------------------------------------------------- requests

    private void handle(HttpObject msg) {
        if (msg instanceof HttpRequest request) {
            if (ex != null) {
                // Cannot happen with Netty's decoder (a request follows the previous one's last content).
                ReferenceCountUtil.release(msg);
                closeBoth();
                return;
            }
            startExchange(request);
            if (msg instanceof HttpContent content && !closing && ex != null) {
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
        releaseHead();
        enter(Phase.BODY);
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
            plane.recorder().refused(repo, head(request), refusal);
            closing = true;
            releaseAll();
            client.writeAndFlush(DockerErrors.refusal(refusal, true)).addListener(ChannelFutureListener.CLOSE);
            if (daemon != null) {
                daemon.close();
            }
            return;
        }
        ex = new Exchange(request, head(request));
        HeadVerdict verdict;
        try {
            // An un-versioned request goes on with the version the daemon would give it, and is judged as that.
            String versioned = plane.policy().versionedTarget(ex.head, repo, plane.grants());
            if (versioned != null) {
                request.setUri(versioned);
                ex = new Exchange(request, head(request));
            }
            verdict = plane.policy().onHead(ex.head, repo, plane.grants());
        } catch (RuntimeException e) {
            verdict = new HeadVerdict.Refuse(policyFailure(e));
        }
        if (verdict instanceof HeadVerdict.Pass) {
            ex.mode = Mode.STREAM;
            answerExpectContinue(request);
            toDaemon(request);
        } else if (verdict instanceof HeadVerdict.InspectBody) {
            startInspection(request, null);
        } else if (verdict instanceof HeadVerdict.InspectStoredContainer stored && stored.streamBody()) {
            startUpload(stored);
        } else if (verdict instanceof HeadVerdict.InspectStoredContainer stored) {
            startInspection(request, stored);
        } else if (verdict instanceof HeadVerdict.Refuse refuse) {
            refuse(refuse.refusal());
        } else {
            refuse(policyFailure(new IllegalStateException("unknown verdict " + verdict)));
        }
    }

    /**
     * {@code docker cp} into a container: the container is judged like a start (its binds pinned,
     * its devices granted) before any of the upload is read; then the whole upload is judged into a
     * spool ({@link UploadSpool}, {@link io.rediacc.gpu.gate.policy.TarStreamCheck}) and only a fully
     * judged archive goes to the container, by its full ID: the daemon unpacks entries as they
     * arrive, so a refusal must come before the first byte reaches it.
     */
    private void startUpload(HeadVerdict.InspectStoredContainer stored) {
        ex.mode = Mode.HOLD;
        ex.stored = stored;
        ex.held = new ArrayDeque<>();
        pauseForLookup(true);
        Exchange decided = ex;
        judgeStoredContainer(decided, true, "to check it before the upload", "upload", (fullId, verdict) -> {
            if (!(verdict instanceof Verdict.Allow)) {
                refuse(verdict instanceof Verdict.Deny deny ? deny.refusal()
                        : policyFailure(new IllegalStateException("an upload's container uses named volumes")));
                return;
            }
            decided.request.setUri(stored.targetFor(fullId));
            try {
                decided.spool = UploadSpool.open(limits.maxUploadBytes());
            } catch (java.io.IOException e) {
                refuse(RefusalMessages.gateError("the gate could not hold the upload to judge it (" + e.getMessage() + "), so it refuses it"));
                return;
            }
            decided.mode = Mode.SPOOL;
            answerExpectContinue(decided.request);
            ArrayDeque<HttpContent> held = decided.held;
            decided.held = null;
            while (!held.isEmpty() && ex == decided && !closing) {
                spoolContent(held.poll());
            }
            while (!held.isEmpty()) {
                held.poll().release();
            }
        });
    }

    /** One piece of an upload into its spool; a refusal answers and ends the connection, the last piece forwards it. */
    private void spoolContent(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        Refusal refused;
        try {
            refused = ex.spool.append(content.content());
            if (refused == null && last) {
                refused = ex.spool.finish();
            }
        } catch (java.io.IOException e) {
            refused = RefusalMessages.gateError("the gate could not hold the upload to judge it (" + e.getMessage() + "), so it refuses it");
        } finally {
            content.release();
        }
        if (refused != null) {
            abortUpload(refused);
        } else if (last) {
            forwardUpload();
        }
    }

    /** The whole upload was judged: it goes to the daemon from the spool, with its length now known. */
    private void forwardUpload() {
        Exchange e = ex;
        UploadSpool spool = e.spool;
        e.spool = null; // the daemon's write owns it now, and closes it when done
        io.netty.handler.codec.http.HttpChunkedInput body;
        try {
            body = spool.body();
        } catch (java.io.IOException io) {
            spool.close();
            abortUpload(RefusalMessages.gateError("the gate could not read back the judged upload (" + io.getMessage() + "), so it refuses it"));
            return;
        }
        e.request.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        HttpUtil.setContentLength(e.request, spool.size());
        e.mode = Mode.STREAM;
        toDaemon(e.request, false);
        toDaemon(body);
    }

    /**
     * The upload is refused before any of it reached the daemon. The client is answered and closed
     * (the rest of its body is unknowable to skip); the spool goes with the exchange.
     */
    private void abortUpload(Refusal refusal) {
        plane.recorder().refused(repo, ex.head, refusal);
        boolean answered = ex.responseStarted;
        closing = true;
        Exchange aborted = ex;
        ex = null;
        dropBody(aborted);
        releaseAll();
        if (daemon != null) {
            daemon.close();
        }
        releasePending();
        if (answered) {
            client.close();
        } else {
            client.writeAndFlush(DockerErrors.refusal(refusal, true))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void pauseForLookup(boolean pause) {
        pausedForLookup = pause;
        updateAutoRead();
    }

    private void startInspection(HttpRequest request, HeadVerdict.InspectStoredContainer stored) {
        ex.mode = Mode.INSPECT;
        ex.stored = stored;
        long declared = HttpUtil.getContentLength(request, -1L);
        if (declared > maxBody) {
            refuse(tooLarge());
            return;
        }
        answerExpectContinue(request);
        ex.body = client.alloc().compositeBuffer(Integer.MAX_VALUE);
    }

    private void onRequestContent(HttpContent content) {
        if (content.decoderResult().isFailure()) {
            // A broken chunk: where this body ends (and the next request starts) is unknowable.
            Throwable cause = content.decoderResult().cause();
            content.release();
            Exchange broken = ex;
            ex = null;
            if (broken.responseStarted) {
                closeBoth();
            } else {
                refuseFraming(broken.head, "the request body is not valid HTTP/1.1 framing and was not forwarded: "
                        + (cause == null ? "malformed body" : cause.getMessage()));
            }
            return;
        }
        boolean last = content instanceof LastHttpContent;
        switch (ex.mode) {
            case STREAM -> toDaemon(content);
            case HOLD -> ex.held.add(content);
            case SPOOL -> spoolContent(content);
            case INSPECT -> {
                ByteBuf data = content.content();
                if (ex.body.readableBytes() + (long) data.readableBytes() > maxBody) {
                    content.release();
                    refuse(tooLarge());
                } else if (!holdBody(data.readableBytes())) {
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
        enter(Phase.RESPONSE);
        if (ex.mode == Mode.INSPECT) {
            decide();
        } else if (ex.responseDone) {
            finishExchange();
        }
    }

    private void decide() {
        // read as JSON once, by the judgement, and reused by the pin step
        GatePolicy.Body body = new GatePolicy.Body(ByteBufUtil.getBytes(ex.body));
        dropBody(ex);
        if (ex.stored == null) {
            Verdict verdict;
            try {
                verdict = plane.policy().onBody(ex.head, body, repo, plane.grants());
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(policyFailure(e));
            }
            conclude(verdict, body);
            return;
        }
        if (ex.stored.action().equals("update")) {
            // An update's body is judged like any body; a restart policy also has its container judged like a start.
            Verdict verdict;
            boolean restarts;
            try {
                verdict = plane.policy().onBody(ex.head, body, repo, plane.grants());
                restarts = verdict instanceof Verdict.Allow && plane.policy().updateSetsRestartPolicy(body.bytes());
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(policyFailure(e));
                restarts = false;
            }
            if (!restarts) {
                conclude(verdict, body);
                return;
            }
        }
        Exchange decided = ex;
        judgeStoredContainer(decided, false, "to re-check its devices", "start", (fullId, verdict) -> {
            // Start what was judged, by its full ID: a rename since the check cannot swap containers.
            decided.request.setUri(decided.stored.targetFor(fullId));
            conclude(verdict, body);
        });
    }

    /** The stored container's full ID and the policy's verdict on it, judged like a start. */
    private interface StoredContainerJudged {
        void accept(String fullId, Verdict verdict);
    }

    /**
     * Reads the stored container {@code decided} names from the daemon and judges it like a start (binds
     * pinned, devices granted). When the daemon cannot say, the client gets the answer here (502, or the
     * daemon's own error such as 404); otherwise {@code then} gets the full ID and the verdict.
     *
     * @param resumeReads  whether the client's reads were paused for the lookup (an upload holds its body)
     * @param beforeWhat   why the gate read the container, for the 502 message
     * @param notForwarded what was not forwarded when the daemon gave no full ID
     */
    private void judgeStoredContainer(Exchange decided, boolean resumeReads, String beforeWhat, String notForwarded,
                                      StoredContainerJudged then) {
        String containerId = decided.stored.containerId();
        StoredContainerReader.read(lookupPool(), containerId).addListener(done -> {
            if (closing || ex != decided) {
                return;
            }
            if (resumeReads) {
                pauseForLookup(false);
            }
            if (!done.isSuccess()) {
                respondLocally(502, "the gate could not read the stored configuration of container "
                        + containerId + " from the Docker daemon of repo " + repo.name()
                        + " " + beforeWhat + ": " + done.cause().getMessage());
                return;
            }
            DaemonLookups.Answer answer = (DaemonLookups.Answer) done.getNow();
            if (answer.status() != 200) {
                // Not found and the like: the daemon's own error is the truthful answer.
                respondLocally(answer.status() >= 400 ? answer.status() : 502, daemonMessage(answer));
                return;
            }
            String fullId = StoredContainerReader.fullId(answer.body());
            if (fullId == null) {
                respondLocally(502, "the Docker daemon of repo " + repo.name() + " described container "
                        + containerId + " without a full container ID; the " + notForwarded + " was not forwarded");
                return;
            }
            Verdict verdict;
            try {
                verdict = plane.policy().onStoredContainer(answer.body(), repo, plane.grants());
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(policyFailure(e));
            }
            then.accept(fullId, verdict);
        });
    }

    private void conclude(Verdict verdict, GatePolicy.Body judged) {
        byte[] body = judged.bytes();
        if (verdict instanceof Verdict.Allow && plane.policy().pinsBody(ex.head)) {
            // The daemon mounts what the gate pinned, not the paths it judged (issue 30).
            GatePolicy.Pinned pinned;
            try {
                pinned = plane.policy().pin(ex.head, judged, repo);
            } catch (RuntimeException e) {
                pinned = new GatePolicy.Pinned(null, null, policyFailure(e));
            }
            if (pinned.refusal() != null) {
                refuse(pinned.refusal());
                return;
            }
            if (pinned.token() != null) {
                ex.pinToken = pinned.token();
                body = pinned.body();
                if (HttpUtil.isContentLengthSet(ex.request)) {
                    HttpUtil.setContentLength(ex.request, body.length);
                }
            }
        }
        if (verdict instanceof Verdict.Allow) {
            ex.mode = Mode.STREAM;
            toDaemon(ex.request, false); // head and body leave in one write
            toDaemon(body.length == 0 ? LastHttpContent.EMPTY_LAST_CONTENT
                    : new DefaultLastHttpContent(Unpooled.wrappedBuffer(body)));
        } else if (verdict instanceof Verdict.Deny deny) {
            refuse(deny.refusal());
        } else if (verdict instanceof Verdict.InspectVolumes inspect) {
            inspectVolumes(inspect.names(), 0, new ArrayList<>(), judged);
        } else {
            refuse(policyFailure(new IllegalStateException("unknown verdict " + verdict)));
        }
    }

    /**
     * Reads the named volumes a request uses from the daemon, one after the other, then lets the
     * policy judge how they are backed; the request goes on only if that allows it.
     */
    private void inspectVolumes(List<String> names, int next, List<StoredVolume> read, GatePolicy.Body body) {
        if (next == names.size()) {
            Verdict verdict;
            try {
                verdict = plane.policy().onVolumes(read, repo);
            } catch (RuntimeException e) {
                verdict = new Verdict.Deny(policyFailure(e));
            }
            conclude(verdict, body);
            return;
        }
        Exchange decided = ex;
        String name = names.get(next);
        StoredContainerReader.readVolume(lookupPool(), name).addListener(done -> {
            if (closing || ex != decided) {
                return;
            }
            if (!done.isSuccess()) {
                respondLocally(502, "the gate could not read volume " + name + " from the Docker daemon of repo " + repo.name()
                        + " to check how it is backed: " + done.cause().getMessage());
                return;
            }
            DaemonLookups.Answer answer = (DaemonLookups.Answer) done.getNow();
            read.add(new StoredVolume(name, answer.status(), answer.body()));
            inspectVolumes(names, next + 1, read, body);
        });
    }

    /** This connection's lookups on its daemon: on its event loop, from the gate's pool. */
    private DaemonLookups.Pool lookupPool() {
        if (lookupPool == null) {
            lookupPool = lookups.pool(daemonEndpoint, client.eventLoop());
        }
        return lookupPool;
    }

    /** Refuses the current request; it never reaches the daemon. The rest of its body is discarded. */
    private void refuse(Refusal refusal) {
        plane.recorder().refused(repo, ex.head, refusal);
        respondLocally(refusal.status(), refusal.message(), refusal.fix());
    }

    private void respondLocally(int status, String message) {
        respondLocally(status, message, null);
    }

    private void respondLocally(int status, String message, String fix) {
        Exchange current = ex;
        current.mode = Mode.DISCARD;
        dropBody(current);
        current.responseStarted = true;
        current.responseDone = true;
        boolean close = current.closeAfter || !HttpUtil.isKeepAlive(current.request);
        current.closeAfter = close;
        client.writeAndFlush(DockerErrors.response(status, message, fix, close));
        if (current.requestDone) {
            finishExchange();
        }
    }

    /** The framing of the request is unknowable: answer and close, since the next request's start is unknowable too. */
    private void refuseFraming(RequestHead head, String message) {
        Refusal refusal = RefusalMessages.framing(message);
        plane.recorder().refused(repo, head, refusal);
        closing = true;
        if (ex != null) {
            dropBody(ex);
        }
        ex = null;
        releaseAll();
        client.writeAndFlush(DockerErrors.refusal(refusal, true)).addListener(ChannelFutureListener.CLOSE);
        if (daemon != null) {
            daemon.close();
        }
    }

    private void finishExchange() {
        Exchange done = ex;
        ex = null;
        boolean close = done.closeAfter || !HttpUtil.isKeepAlive(done.request) || clientInputShut;
        if (close) {
            closing = true;
            releaseAll();
            closeAfterFlush(client);
            if (daemon != null) {
                daemon.close();
            }
            return;
        }
        while (!backlog.isEmpty() && !closing && !raw && (ex == null || !ex.requestDone)) {
            handle((HttpObject) backlog.poll());
        }
        if (ex == null && !closing && !raw) {
            enter(Phase.IDLE);
        }
        if (backlog.isEmpty()) {
            pauseForBacklog(false);
        }
    }

    // ---------------------------------------------------------------- daemon side

    private void toDaemon(Object msg) {
        toDaemon(msg, true);
    }

    /** Without {@code flush}, the next message to the daemon must follow at once and flush both. */
    private void toDaemon(Object msg, boolean flush) {
        if (daemon != null && daemon.isActive()) {
            if (flush) {
                daemon.writeAndFlush(msg);
            } else {
                daemon.write(msg);
            }
            if (!daemon.isWritable()) {
                pauseForBackpressure(true);
            }
            return;
        }
        daemonPending.add(msg);
        // Hold the client until the daemon is there: what it sends meanwhile would pile up here.
        pauseForBackpressure(true);
        if (!daemonConnecting) {
            connectDaemon();
        }
    }

    private void connectDaemon() {
        daemonConnecting = true;
        Bootstrap bootstrap = new Bootstrap()
                .group(client.eventLoop())
                .channelFactory(plane.transport().channels(daemonEndpoint))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) plane.daemonConnectTimeout().toMillis())
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // The chunked writer sends a judged upload from its spool as fast as the daemon takes it.
                        ch.pipeline().addLast(new HttpClientCodec(DataPlane.responseDecoderConfig(), false, false),
                                new io.netty.handler.stream.ChunkedWriteHandler(), new AdvertisedVersionCap(), new DaemonSide());
                    }
                });
        bootstrap.connect(plane.transport().address(daemonEndpoint)).addListener((ChannelFutureListener) f -> {
            daemonConnecting = false;
            if (closing) {
                f.channel().close();
                releasePending();
                return;
            }
            if (!f.isSuccess()) {
                releasePending();
                pauseForBackpressure(false);
                String why = f.cause() == null ? "connection failed" : f.cause().getMessage();
                if (ex != null && !ex.responseStarted) {
                    respondLocally(502, "the Docker daemon of repo " + repo.name() + " is not reachable at "
                            + daemonEndpoint + ": " + why);
                } else {
                    closeBoth();
                }
                return;
            }
            daemon = f.channel();
            daemonInputShut = false;
            while (!daemonPending.isEmpty()) {
                daemon.write(daemonPending.poll());
            }
            daemon.flush();
            pauseForBackpressure(!daemon.isWritable());
        });
    }

    /** Handler on the daemon channel; it runs on the client's event loop. */
    private final class DaemonSide extends ChannelInboundHandlerAdapter {

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            flushClient();
            ctx.fireChannelReadComplete();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (closing) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (raw) {
                toClientRaw(msg);
                return;
            }
            if (msg instanceof HttpResponse response) {
                onDaemonResponse(response);
                if (msg instanceof HttpContent content && !raw) {
                    onDaemonContent(content);
                } else if (msg instanceof HttpContent content) {
                    toClientRaw(content);
                }
                return;
            }
            if (msg instanceof HttpContent content) {
                onDaemonContent(content);
                return;
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            flushClient();
            if (evt instanceof ChannelInputShutdownEvent) {
                daemonInputShut = true;
                if (raw) {
                    shutdownOutputAfterFlush(client);
                    if (clientInputShut) {
                        closeBoth();
                    }
                } else {
                    ctx.close();
                }
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                pauseForBackpressure(false);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            flushClient();
            if (daemon != ctx.channel()) {
                return;
            }
            daemon = null;
            pauseForBackpressure(false);
            if (closing) {
                return;
            }
            if (raw) {
                closeAfterFlush(client);
                closing = true;
                return;
            }
            if (ex != null && ex.mode == Mode.STREAM) {
                if (!ex.responseStarted) {
                    respondLocally(502, "the Docker daemon of repo " + repo.name()
                            + " closed the connection without answering");
                } else if (!ex.responseDone) {
                    closing = true;
                    closeAfterFlush(client);
                }
            }
            // Idle: the next request connects again.
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debugf("daemon connection of repo %s failed: %s", repo.name(), cause.toString());
            ctx.close();
        }
    }

    private void onDaemonResponse(HttpResponse response) {
        if (ex == null || ex.responseDone || ex.mode != Mode.STREAM || response.decoderResult().isFailure()) {
            // An answer to nothing, or one we cannot read: the connection's framing is lost.
            closeBoth();
            return;
        }
        int code = response.status().code();
        if (code == 101 || isRawStream(response)) {
            switchToRaw(response);
            return;
        }
        if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
            return; // 100 Continue was already answered by the gate itself
        }
        if (ex.pinToken != null) {
            String token = ex.pinToken;
            ex.pinToken = null;
            try {
                plane.policy().settlePins(repo, token, response.status().codeClass() == HttpStatusClass.SUCCESS);
            } catch (RuntimeException e) {
                LOG.warnf("pins %s of repo %s: %s (the next sweep settles them)", token, repo.name(), e.getMessage());
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
        toClient(response);
    }

    private void onDaemonContent(HttpContent content) {
        if (ex == null || !ex.responseStarted || ex.responseDone) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        toClient(content);
        if (last) {
            ex.responseDone = true;
            if (ex.requestDone) {
                finishExchange();
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

    /** After a hijack the connection is no longer HTTP: remove both codecs and splice bytes. */
    private void switchToRaw(HttpResponse response) {
        if (!backlog.isEmpty()) {
            // The client sent bytes before the daemon answered; they were read as HTTP and cannot be replayed.
            ReferenceCountUtil.release(response);
            closeBoth();
            return;
        }
        raw = true;
        ex = null;
        enter(Phase.RAW);
        // Removing a decoder hands over the bytes it had buffered; hold them until both codecs are
        // gone so that nothing raw passes through an HTTP encoder, and the 101 goes out first.
        switching = true;
        client.write(response);
        client.pipeline().remove(HttpServerCodec.class);
        daemon.pipeline().remove(HttpClientCodec.class);
        switching = false;
        while (!rawToDaemon.isEmpty()) {
            daemon.write(rawToDaemon.poll());
        }
        while (!rawToClient.isEmpty()) {
            client.write(rawToClient.poll());
        }
        daemon.flush();
        client.flush();
        pauseForBacklog(false);
        if (clientInputShut) {
            shutdownOutputAfterFlush(daemon);
        }
    }

    /**
     * Written now, flushed when the daemon's side has handed over what it read
     * ({@link DaemonSide#channelReadComplete}): a response head and its body leave in one write.
     */
    private void toClient(Object msg) {
        client.write(msg);
        clientFlushPending = true;
        if (!client.isWritable() && daemon != null) {
            daemon.config().setAutoRead(false);
        }
    }

    private void flushClient() {
        if (clientFlushPending) {
            clientFlushPending = false;
            client.flush();
        }
    }

    private void toClientRaw(Object msg) {
        ByteBuf data = unwrap(msg);
        if (data == null) {
            return;
        }
        if (switching) {
            rawToClient.add(data);
            return;
        }
        toClient(data);
    }

    private void toDaemonRaw(Object msg) {
        ByteBuf data = unwrap(msg);
        if (data == null) {
            return;
        }
        if (switching) {
            rawToDaemon.add(data);
            return;
        }
        if (daemon == null) {
            data.release();
            return;
        }
        daemon.writeAndFlush(data);
        if (!daemon.isWritable()) {
            pauseForBackpressure(true);
        }
    }

    /** Bytes of a message in raw mode; codec leftovers may still arrive wrapped as HTTP content. */
    private static ByteBuf unwrap(Object msg) {
        if (msg instanceof ByteBuf buf) {
            if (buf.isReadable()) {
                return buf;
            }
            buf.release();
            return null;
        }
        if (msg instanceof ByteBufHolder holder) {
            ByteBuf content = holder.content();
            if (content.isReadable()) {
                return content;
            }
            holder.release();
            return null;
        }
        ReferenceCountUtil.release(msg);
        return null;
    }

    // ---------------------------------------------------------------- limits

    private void enter(Phase next) {
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

    /** When the current phase runs out, in System.nanoTime() terms; {@link #NO_DEADLINE} when it cannot. */
    private long deadline() {
        return switch (phase) {
            case HEAD -> phaseStart + limits.headerTimeout().toNanos();
            case IDLE -> phaseStart + limits.idleTimeout().toNanos();
            case BODY -> ex != null && ex.mode == Mode.INSPECT ? phaseStart + limits.bodyTimeout().toNanos()
                    : pausedForBackpressure ? NO_DEADLINE : lastRead + limits.bodyTimeout().toNanos();
            case RESPONSE, RAW -> NO_DEADLINE;
        };
    }

    /** One timer per connection, moved only earlier; when it fires early it looks again. */
    private void arm() {
        long at = deadline();
        if (at == NO_DEADLINE || client == null || (timer != null && timerAt <= at)) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        timerAt = at;
        timer = client.eventLoop().schedule(this::onTimer, Math.max(0, at - System.nanoTime()),
                java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    private void onTimer() {
        timer = null;
        timerAt = NO_DEADLINE;
        if (closing || raw) {
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
            case HEAD -> failConnection(408, "the request head did not arrive within " + limits.headerTimeout().toSeconds()
                    + " s (gate.connections.header-timeout); the connection was closed");
            case IDLE -> closeBoth(); // an idle keep-alive connection ends without an answer, as in any HTTP server
            case BODY -> {
                String message = "the request body did not arrive within " + limits.bodyTimeout().toSeconds()
                        + " s (gate.connections.body-timeout); it was not forwarded and the connection was closed";
                if (ex != null && !ex.responseStarted) {
                    failConnection(408, message);
                } else {
                    closeBoth();
                }
            }
            default -> {
            }
        }
    }

    /** Bytes read from the client; false when holding them would pass a limit (the connection is then answered). */
    private boolean rawBytes(int bytes) {
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

    private boolean holdBody(int bytes) {
        if (!hold(bytes)) {
            return false;
        }
        heldBody += bytes;
        return true;
    }

    /** Takes {@code bytes} from the repo's and the gate's budgets, or answers the request 429/503. */
    private boolean hold(long bytes) {
        if (!repoBudget.tryHold(bytes)) {
            overBudget(429, "repo " + repo.name() + " has more unfinished requests than the gate holds for one repo ("
                    + repoBudget.maxPending + " bytes, gate.connections.max-pending-bytes-per-repo); finish or close"
                    + " the others and retry");
            return false;
        }
        if (!gateBudget.tryHold(bytes)) {
            repoBudget.release(bytes);
            overBudget(503, "the gate holds as many unfinished requests as it can (" + gateBudget.maxPending
                    + " bytes, gate.connections.max-pending-bytes); retry shortly");
            return false;
        }
        return true;
    }

    private void overBudget(int status, String message) {
        if (ex != null && !ex.responseStarted && ex.mode == Mode.INSPECT) {
            // The head is known: answer it, discard the rest of its body, then close.
            ex.closeAfter = true;
            respondLocally(status, message);
        } else {
            failConnection(status, message);
        }
    }

    /** Answers with a Docker error and closes; what the client still sends is not read. */
    private void failConnection(int status, String message) {
        LOG.debugf("repo %s: %s", repo.name(), message);
        closing = true;
        releaseAll();
        releaseHead();
        ex = null;
        client.writeAndFlush(DockerErrors.response(status, message, true)).addListener(ChannelFutureListener.CLOSE);
        if (daemon != null) {
            daemon.close();
        }
    }

    private void releaseHead() {
        if (heldHead > 0) {
            repoBudget.release(heldHead);
            gateBudget.release(heldHead);
            heldHead = 0;
        }
    }

    private void dropBody(Exchange e) {
        if (e.held != null) {
            while (!e.held.isEmpty()) {
                e.held.poll().release();
            }
        }
        if (e.body != null) {
            e.body.release();
            e.body = null;
        }
        if (e.spool != null) {
            e.spool.close();
            e.spool = null;
        }
        if (heldBody > 0) {
            repoBudget.release(heldBody);
            gateBudget.release(heldBody);
            heldBody = 0;
        }
    }

    // ---------------------------------------------------------------- plumbing

    private void answerExpectContinue(HttpRequest request) {
        if (HttpUtil.is100ContinueExpected(request)) {
            request.headers().remove(HttpHeaderNames.EXPECT);
            // Written below the HTTP encoder: an interim answer must not count as the request's response.
            client.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(CONTINUE));
        }
    }

    private void pauseForBacklog(boolean pause) {
        pausedForBacklog = pause;
        updateAutoRead();
    }

    private void pauseForBackpressure(boolean pause) {
        if (pausedForBackpressure && !pause) {
            lastRead = System.nanoTime(); // time the daemon held the client back is not the client's pause
            arm();
        }
        pausedForBackpressure = pause;
        updateAutoRead();
    }

    private void updateAutoRead() {
        if (client != null) {
            client.config().setAutoRead(!pausedForBacklog && !pausedForBackpressure && !pausedForLookup);
        }
    }

    private void shutdownOutputAfterFlush(Channel channel) {
        if (channel == null) {
            return;
        }
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
            if (channel instanceof DuplexChannel duplex && channel.isActive()) {
                duplex.shutdownOutput();
            } else {
                channel.close();
            }
        });
    }

    private static void closeAfterFlush(Channel channel) {
        if (channel != null) {
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void closeBoth() {
        closing = true;
        releaseAll();
        closeAfterFlush(client);
        closeAfterFlush(daemon);
    }

    private void releaseAll() {
        while (!backlog.isEmpty()) {
            ReferenceCountUtil.release(backlog.poll());
        }
        releasePending();
        if (ex != null) {
            dropBody(ex);
        }
    }

    private void releasePending() {
        while (!daemonPending.isEmpty()) {
            Object pending = daemonPending.poll();
            if (pending instanceof io.netty.handler.stream.ChunkedInput<?> spooled) {
                try {
                    spooled.close(); // a judged upload never sent: its spool file goes
                } catch (Exception ignored) {
                    // closing an unlinked file only frees its space
                }
            } else {
                ReferenceCountUtil.release(pending);
            }
        }
    }

    private Refusal tooLarge() {
        return RefusalMessages.bodyTooLargeToInspect(maxBody);
    }

    private Refusal policyFailure(RuntimeException e) {
        LOG.errorf(e, "policy failed on a request of repo %s; refusing it", repo.name());
        return RefusalMessages.gateError("the gate could not evaluate this request and refused it");
    }

    private static String daemonMessage(DaemonLookups.Answer answer) {
        String text = new String(answer.body(), StandardCharsets.UTF_8);
        try {
            var node = JSON.readTree(text);
            if (node != null && node.hasNonNull("message")) {
                return node.get("message").asText();
            }
        } catch (Exception ignored) {
            // not Docker's error format; fall through
        }
        return "the Docker daemon answered " + answer.status() + " when the gate read the container's configuration";
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
