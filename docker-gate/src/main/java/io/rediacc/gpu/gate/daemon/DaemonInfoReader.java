package io.rediacc.gpu.gate.daemon;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.proxy.NettyTransport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Asks a repo daemon for {@code GET /info} and {@code GET /version}, each on a connection of its
 * own, on the gate's event loops.
 */
final class DaemonInfoReader {

    /** /info and /version are a few KiB; anything near this is not a daemon's answer. */
    private static final int MAX_INFO_BYTES = 4 * 1024 * 1024;

    private final NettyTransport transport;
    private final Duration connectTimeout;
    private final Duration readTimeout;

    DaemonInfoReader(NettyTransport transport, Duration connectTimeout, Duration readTimeout) {
        this.transport = transport;
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    /** The daemon's parsed {@code /info} and {@code /version}; fails with the reason when it cannot be reached or read. */
    CompletableFuture<DaemonAnswer> read(SocketEndpoint daemon) {
        return get(daemon, "/info").thenCompose(info -> get(daemon, "/version")
                .thenApply(version -> new DaemonAnswer(DaemonInfo.parse(info), DaemonInfo.apiVersions(version))));
    }

    /** The body of the daemon's 200 answer to {@code GET path}. */
    private CompletableFuture<byte[]> get(SocketEndpoint daemon, String path) {
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        EventLoop loop = transport.group().next();
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channelFactory(transport.channels(daemon))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(
                                new ReadTimeoutHandler(readTimeout.toMillis(), TimeUnit.MILLISECONDS),
                                new HttpClientCodec(),
                                new HttpObjectAggregator(MAX_INFO_BYTES),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
                                        try {
                                            if (response.status().code() != 200) {
                                                throw new IllegalStateException("GET " + path + " answered " + response.status());
                                            }
                                            answer.complete(ByteBufUtil.getBytes(response.content()));
                                        } catch (RuntimeException e) {
                                            answer.completeExceptionally(e);
                                        }
                                        ctx.close();
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        answer.completeExceptionally(new IllegalStateException("the daemon closed the connection"));
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        answer.completeExceptionally(cause);
                                        ctx.close();
                                    }
                                });
                    }
                });
        try {
            bootstrap.connect(transport.address(daemon)).addListener((ChannelFutureListener) connected -> {
                if (!connected.isSuccess()) {
                    answer.completeExceptionally(connected.cause());
                    return;
                }
                FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
                request.headers().set(HttpHeaderNames.HOST, "docker");
                request.headers().set(HttpHeaderNames.USER_AGENT, GateUserAgent.VALUE);
                connected.channel().writeAndFlush(request);
            });
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    /** What one check read: the daemon's configuration and the API versions it serves. */
    record DaemonAnswer(DaemonInfo info, io.rediacc.gpu.gate.policy.ApiVersions apiVersions) {
    }
}
