package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.VolumeAnswers;
import org.jboss.logging.Logger;

/**
 * One client connection to a repo's endpoint, and its one connection to the repo's daemon.
 *
 * <p>This class is the client channel's handler and what the pieces share: the channels, whether
 * the connection is closing, and how it ends. The work is in the pieces:
 * <ul>
 *   <li>{@link HttpExchanges}: each request read, judged, forwarded or refused, and its answer
 *       relayed ({@link BodyDecision} for held bodies, {@link UploadRelay} for {@code docker cp});</li>
 *   <li>{@link RawSplice}: after a hijack (attach, exec start), raw bytes both ways;</li>
 *   <li>{@link ConnectionBudget}: read timeouts and the bytes held against the repo's and the gate's budgets;</li>
 *   <li>{@link DaemonLink}: the connection to the daemon; {@link ClientReads}: why client reads are paused.</li>
 * </ul>
 *
 * <p>Both channels run on the same event loop, so no state here or in the pieces needs locking.
 */
final class ClientConnection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = Logger.getLogger(ClientConnection.class);

    final DataPlane plane;
    final RepoIdentity repo;
    final ClientReads reads = new ClientReads();
    final ConnectionBudget budget;
    final DaemonLink daemon;
    final RawSplice splice = new RawSplice(this);
    final HttpExchanges exchanges;

    private Channel client;
    /** The connection is ending: nothing more is read, judged or forwarded. */
    private boolean closing;
    /** The client sent its last byte (a half-close); its answer may still go out. */
    private boolean clientInputShut;
    /** Written to the client and not yet flushed: flushed once per read of the daemon's side. */
    private boolean clientFlushPending;

    ClientConnection(DataPlane plane, RepoIdentity repo, SocketEndpoint daemonEndpoint, DaemonLookups lookups,
                     VolumeAnswers volumeAnswers, Budget repoBudget, Budget gateBudget) {
        this.plane = plane;
        this.repo = repo;
        this.budget = new ConnectionBudget(this, plane.limits(), repoBudget, gateBudget);
        this.daemon = new DaemonLink(this, daemonEndpoint);
        BodyDecision decision = new BodyDecision(this, lookups, volumeAnswers, daemonEndpoint);
        this.exchanges = new HttpExchanges(this, decision, new UploadRelay(this, decision));
    }

    /** Sees the raw bytes before the HTTP decoder: the first byte of a head, and the bytes a head holds. */
    ChannelInboundHandlerAdapter rawReads() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ByteBuf buf && !splice.active() && !closing && !budget.clientBytes(buf.readableBytes())) {
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
        reads.attach(client);
        budget.enter(ConnectionBudget.Phase.HEAD);
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (splice.active()) {
            splice.fromClient(msg);
            return;
        }
        if (!(msg instanceof HttpObject http)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        exchanges.fromClient(http);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            clientInputShut = true;
            if (splice.active()) {
                splice.clientInputShut();
            } else {
                exchanges.clientInputShut();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (client.isWritable()) {
            daemon.resumeReads();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        releaseAll();
        budget.releaseHead();
        budget.stop();
        daemon.closeAfterFlush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debugf("client connection of repo %s failed: %s", repo.name(), cause.toString());
        closeBoth();
    }

    // ---------------------------------------------------------------- shared by the pieces

    /** The client's channel; null until the connection is active. */
    Channel client() {
        return client;
    }

    boolean closing() {
        return closing;
    }

    void markClosing() {
        closing = true;
    }

    boolean clientInputShut() {
        return clientInputShut;
    }

    /**
     * Written now, flushed when the daemon's side has handed over what it read
     * ({@link #flushClient}, once per read): a response head and its body leave in one write.
     */
    void toClient(Object msg) {
        client.write(msg);
        clientFlushPending = true;
        if (!client.isWritable()) {
            daemon.pauseReads();
        }
    }

    void flushClient() {
        if (clientFlushPending) {
            clientFlushPending = false;
            client.flush();
        }
    }

    /** The daemon takes bytes slower than the client sends them (or is being connected): hold the client. */
    void pauseForBackpressure(boolean pause) {
        boolean resumed = reads.pausedFor(ClientReads.Reason.BACKPRESSURE) && !pause;
        reads.pause(ClientReads.Reason.BACKPRESSURE, pause);
        if (resumed) {
            // After the pause is lifted: a body timer that fired during it stopped (no deadline while
            // the daemon holds the client back), and must be armed again from here.
            budget.clientReadsResumed();
        }
    }

    /** Answers with a Docker error and closes; what the client still sends is not read. */
    void failConnection(int status, String message) {
        LOG.debugf("repo %s: %s", repo.name(), message);
        closing = true;
        releaseAll();
        budget.releaseHead();
        exchanges.forget();
        client.writeAndFlush(DockerErrors.response(status, message, true)).addListener(ChannelFutureListener.CLOSE);
        daemon.close();
    }

    void closeBoth() {
        closing = true;
        releaseAll();
        closeAfterFlush(client);
        daemon.closeAfterFlush();
    }

    /** Frees what the connection holds for requests not yet forwarded. */
    void releaseAll() {
        exchanges.releaseAll();
    }

    void shutdownOutputAfterFlush(Channel channel) {
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

    static void closeAfterFlush(Channel channel) {
        if (channel != null) {
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
