package io.rediacc.gpu.gate.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import org.jboss.logging.Logger;

import java.util.ArrayDeque;

/**
 * A client connection's one connection to its repo's daemon: opened when the first message for it
 * is ready, on the client's event loop, and opened again for the next request after the daemon
 * closed it. What the daemon sends goes to the exchange ({@link HttpExchanges}) or, after a hijack,
 * to the splice ({@link RawSplice}).
 */
final class DaemonLink {

    private static final Logger LOG = Logger.getLogger(DaemonLink.class);

    private final ClientConnection conn;
    private final SocketEndpoint endpoint;
    private Channel channel;
    private boolean connecting;
    /** The daemon sent its last byte (a half-close); what the client sends may still go to it. */
    private boolean inputShut;
    /** What is for the daemon while it is being connected. */
    private final ArrayDeque<Object> pending = new ArrayDeque<>();

    DaemonLink(ClientConnection conn, SocketEndpoint endpoint) {
        this.conn = conn;
        this.endpoint = endpoint;
    }

    /** The daemon's channel; null while it is not connected. */
    Channel channel() {
        return channel;
    }

    boolean inputShut() {
        return inputShut;
    }

    void send(Object msg) {
        send(msg, true);
    }

    /** Without {@code flush}, the next message to the daemon must follow at once and flush both. */
    void send(Object msg, boolean flush) {
        if (channel != null && channel.isActive()) {
            if (flush) {
                channel.writeAndFlush(msg);
            } else {
                channel.write(msg);
            }
            if (!channel.isWritable()) {
                conn.pauseForBackpressure(true);
            }
            return;
        }
        pending.add(msg);
        // Hold the client until the daemon is there: what it sends meanwhile would pile up here.
        conn.pauseForBackpressure(true);
        if (!connecting) {
            connect();
        }
    }

    /** Spliced bytes from the client; dropped when the daemon has gone (the splice then ends). */
    void sendRaw(ByteBuf data) {
        if (channel == null) {
            data.release();
            return;
        }
        channel.writeAndFlush(data);
        if (!channel.isWritable()) {
            conn.pauseForBackpressure(true);
        }
    }

    /** The client cannot take more now: the daemon's answer waits in the daemon until it can. */
    void pauseReads() {
        if (channel != null) {
            channel.config().setAutoRead(false);
        }
    }

    /** The client can take more again. */
    void resumeReads() {
        if (channel != null) {
            channel.config().setAutoRead(true);
        }
    }

    void close() {
        if (channel != null) {
            channel.close();
        }
    }

    void closeAfterFlush() {
        ClientConnection.closeAfterFlush(channel);
    }

    private void connect() {
        connecting = true;
        DataPlane plane = conn.plane;
        Bootstrap bootstrap = new Bootstrap()
                .group(conn.client().eventLoop())
                .channelFactory(plane.transport().channels(endpoint))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) plane.daemonConnectTimeout().toMillis())
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // The chunked writer sends a judged upload from its spool as fast as the daemon takes it.
                        ch.pipeline().addLast(new HttpClientCodec(DataPlane.responseDecoderConfig(), false, false),
                                new ChunkedWriteHandler(), new AdvertisedVersionCap(), new DaemonSide());
                    }
                });
        bootstrap.connect(plane.transport().address(endpoint)).addListener((ChannelFutureListener) f -> {
            connecting = false;
            if (conn.closing()) {
                f.channel().close();
                releasePending();
                return;
            }
            if (!f.isSuccess()) {
                releasePending();
                conn.pauseForBackpressure(false);
                String why = f.cause() == null ? "connection failed" : f.cause().getMessage();
                conn.exchanges.daemonUnreachable("the Docker daemon of repo " + conn.repo.name()
                        + " is not reachable at " + endpoint + ": " + why);
                return;
            }
            channel = f.channel();
            inputShut = false;
            while (!pending.isEmpty()) {
                channel.write(pending.poll());
            }
            channel.flush();
            conn.pauseForBackpressure(!channel.isWritable());
        });
    }

    /** Drops what was never sent; a judged upload's spool file goes with it. */
    void releasePending() {
        while (!pending.isEmpty()) {
            Object unsent = pending.poll();
            if (unsent instanceof ChunkedInput<?> spooled) {
                try {
                    spooled.close(); // a judged upload never sent: its spool file goes
                } catch (Exception ignored) {
                    // closing an unlinked file only frees its space
                }
            } else {
                ReferenceCountUtil.release(unsent);
            }
        }
    }

    /** Handler on the daemon channel; it runs on the client's event loop, so nothing here needs locking. */
    private final class DaemonSide extends ChannelInboundHandlerAdapter {

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            conn.flushClient();
            ctx.fireChannelReadComplete();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (conn.closing()) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (conn.splice.active()) {
                conn.splice.fromDaemon(msg);
                return;
            }
            if (msg instanceof HttpResponse response) {
                conn.exchanges.onDaemonResponse(response);
                // A hijack's answer may carry the first raw bytes in the same message.
                if (msg instanceof HttpContent content && !conn.splice.active()) {
                    conn.exchanges.onDaemonContent(content);
                } else if (msg instanceof HttpContent content) {
                    conn.splice.fromDaemon(content);
                }
                return;
            }
            if (msg instanceof HttpContent content) {
                conn.exchanges.onDaemonContent(content);
                return;
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            conn.flushClient();
            if (evt instanceof ChannelInputShutdownEvent) {
                inputShut = true;
                if (conn.splice.active()) {
                    conn.splice.daemonInputShut();
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
                conn.pauseForBackpressure(false);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            conn.flushClient();
            if (channel != ctx.channel()) {
                return;
            }
            channel = null;
            conn.pauseForBackpressure(false);
            if (conn.closing()) {
                return;
            }
            if (conn.splice.active()) {
                ClientConnection.closeAfterFlush(conn.client());
                conn.markClosing();
                return;
            }
            conn.exchanges.daemonClosed();
            // Idle: the next request connects again.
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debugf("daemon connection of repo %s failed: %s", conn.repo.name(), cause.toString());
            ctx.close();
        }
    }
}
