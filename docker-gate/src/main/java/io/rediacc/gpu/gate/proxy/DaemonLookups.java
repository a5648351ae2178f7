package io.rediacc.gpu.gate.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The gate's own {@code GET}s to a repo's daemon (a stored container before a start, a named
 * volume before a create) over a small pool of keep-alive connections, instead of a new connection
 * per lookup.
 *
 * <p>Each event loop keeps its own idle connections per daemon, used only on that loop, so the pool
 * needs no lock. At most {@link #MAX_IDLE} stay idle per loop and daemon (more in flight at once
 * are closed after their answer), and an idle one is closed after {@link #IDLE_TIMEOUT}. A
 * connection goes back to the pool only after a complete answer that keeps it alive; after a
 * timeout, an error, an answer that ends with {@code Connection: close}, or anything the daemon
 * sends while no lookup is waiting, it is closed and never used again. A lookup that finds its
 * reused connection closed by the daemon (it may drop an idle one at any time) is sent once more
 * on a new connection; both requests are reads.
 */
final class DaemonLookups implements AutoCloseable {

    /** Idle connections kept per event loop and daemon. */
    static final int MAX_IDLE = 8;
    /** How long an idle connection is kept. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(15);

    /** The daemon's answer: its status and body. */
    record Answer(int status, byte[] body) {
    }

    private record Key(EventLoop loop, SocketEndpoint daemon) {
    }

    /** The lookups of one event loop to one daemon, and their idle connections; used only on that loop. */
    final class Pool {
        final Key key;
        private final ArrayDeque<Lookup> free = new ArrayDeque<>();

        private Pool(Key key) {
            this.key = key;
        }

        /** {@code GET path}; the answer completes on this pool's event loop. */
        Promise<Answer> get(String path) {
            Promise<Answer> answer = key.loop().newPromise();
            if (key.loop().inEventLoop()) {
                send(this, path, answer, true);
            } else {
                key.loop().execute(() -> send(this, path, answer, true));
            }
            return answer;
        }
    }

    private final NettyTransport transport;
    private final Duration connectTimeout;
    private final Duration answerTimeout;
    private final Map<Key, Pool> pools = new ConcurrentHashMap<>();
    /** Every lookup connection, idle or in use, so that {@link #close()} reaches all of them. */
    private final ChannelGroup all = new DefaultChannelGroup("daemon-lookups", GlobalEventExecutor.INSTANCE);
    private volatile boolean closed;

    DaemonLookups(NettyTransport transport, Duration connectTimeout, Duration answerTimeout) {
        this.transport = transport;
        this.connectTimeout = connectTimeout;
        this.answerTimeout = answerTimeout;
    }

    /** {@code GET path} on {@code daemon}; the answer completes on {@code loop}, the caller's event loop. */
    Promise<Answer> get(SocketEndpoint daemon, EventLoop loop, String path) {
        return pool(daemon, loop).get(path);
    }

    /** The lookups of {@code loop} to {@code daemon}: a connection keeps its own, and skips this map. */
    Pool pool(SocketEndpoint daemon, EventLoop loop) {
        return pools.computeIfAbsent(new Key(loop, daemon), Pool::new);
    }

    /** Connections open now (idle and in use), for tests. */
    int openConnections() {
        return all.size();
    }

    /** Closes the idle connections to {@code daemon} (a repo served no more, or served elsewhere). */
    void forget(SocketEndpoint daemon) {
        for (Pool pool : pools.values()) {
            if (pool.key.daemon().equals(daemon)) {
                pool.key.loop().execute(() -> {
                    Lookup lookup;
                    while ((lookup = pool.free.pollLast()) != null) {
                        lookup.channel.close();
                    }
                });
            }
        }
    }

    /** Closes every connection; a lookup after this still gets its answer, on a connection closed after it. */
    @Override
    public void close() {
        closed = true;
        all.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    private void send(Pool pool, String path, Promise<Answer> answer, boolean mayReuse) {
        Lookup reused = mayReuse ? takeIdle(pool) : null;
        if (reused != null) {
            reused.start(path, answer, true);
            return;
        }
        Key key = pool.key;
        Lookup fresh = new Lookup(pool);
        new Bootstrap()
                .group(key.loop())
                .channelFactory(transport.channels(key.daemon()))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(
                                new HttpClientCodec(DataPlane.responseDecoderConfig(), false, false),
                                new HttpObjectAggregator(DataPlane.MAX_INSPECT_BYTES),
                                fresh);
                    }
                })
                .connect(transport.address(key.daemon()))
                .addListener((ChannelFutureListener) connected -> {
                    if (!connected.isSuccess()) {
                        answer.tryFailure(connected.cause());
                        return;
                    }
                    // In the group from the start, so close() reaches it; one opened after close() is closed after its answer.
                    all.add(connected.channel());
                    fresh.start(path, answer, false);
                });
    }

    /** An idle, open connection of {@code pool}, or null. Runs on its loop. */
    private static Lookup takeIdle(Pool pool) {
        Lookup lookup;
        while ((lookup = pool.free.pollLast()) != null) {
            if (lookup.channel.isActive()) {
                return lookup;
            }
            lookup.channel.close();
        }
        return null;
    }

    /** Back to the pool after a complete keep-alive answer, or closed. Runs on the pool's loop. */
    private void release(Lookup lookup, boolean reusable) {
        if (reusable && !closed && lookup.channel.isActive()) {
            ArrayDeque<Lookup> free = lookup.pool.free;
            if (free.size() < MAX_IDLE) {
                free.addLast(lookup);
                lookup.idleSince();
                return;
            }
        }
        lookup.channel.close();
    }

    private static void dropIdle(Lookup lookup) {
        lookup.pool.free.remove(lookup);
    }

    /** One lookup connection: at most one request in flight; its state is touched only on its event loop. */
    private final class Lookup extends ChannelInboundHandlerAdapter {

        final Pool pool;
        Channel channel;
        Promise<Answer> pending;
        String pendingPath;
        boolean pendingOnReused;
        ScheduledFuture<?> timer;

        Lookup(Pool pool) {
            this.pool = pool;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
        }

        void start(String path, Promise<Answer> answer, boolean reused) {
            cancelTimer();
            pending = answer;
            pendingPath = path;
            pendingOnReused = reused;
            timer = channel.eventLoop().schedule(() -> fail(new IOException("the daemon did not answer within "
                    + answerTimeout.toMillis() + " ms"), false), answerTimeout.toMillis(), TimeUnit.MILLISECONDS);
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            request.headers().set(HttpHeaderNames.HOST, "docker");
            channel.writeAndFlush(request).addListener((ChannelFutureListener) written -> {
                if (!written.isSuccess()) {
                    fail(written.cause(), true);
                }
            });
        }

        void idleSince() {
            cancelTimer();
            timer = channel.eventLoop().schedule(() -> {
                if (pending == null) {
                    channel.close();
                }
            }, IDLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                Promise<Answer> answer = pending;
                if (answer == null || !(msg instanceof FullHttpResponse response)) {
                    // An answer to no question: this connection's framing can no longer be trusted.
                    ctx.close();
                    return;
                }
                clear();
                if (response.decoderResult().isFailure()) {
                    ctx.close();
                    answer.tryFailure(new IOException("the daemon's answer is not valid HTTP: " + response.decoderResult().cause()));
                    return;
                }
                Answer read = new Answer(response.status().code(), ByteBufUtil.getBytes(response.content()));
                release(this, HttpUtil.isKeepAlive(response));
                answer.trySuccess(read);
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            dropIdle(this);
            fail(new IOException("the daemon closed the connection"), true);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(cause, cause instanceof IOException);
        }

        /** Fails the lookup in flight, if any, and closes; a reused connection the daemon dropped is retried once. */
        private void fail(Throwable cause, boolean dropped) {
            Promise<Answer> answer = pending;
            String path = pendingPath;
            boolean retry = dropped && pendingOnReused;
            clear();
            channel.close();
            if (answer == null) {
                return;
            }
            if (retry) {
                send(pool, path, answer, false);
            } else {
                answer.tryFailure(cause);
            }
        }

        private void clear() {
            cancelTimer();
            pending = null;
            pendingPath = null;
        }

        private void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }
}
