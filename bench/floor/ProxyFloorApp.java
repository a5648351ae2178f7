package io.rediacc.gpu.floor;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * bench/gate-dataplane.sh FLOOR=1: the data plane's floor on the gate's own stack. Packaged with docker-gate's pom
 * and none of its code, it proxies HTTP/1.1 the way the gate does and nothing more: Netty on the event loops of the
 * Vert.x instance Quarkus runs (epoll's transport when Vert.x runs on it, as the gate's {@code NettyTransport}), one
 * daemon connection per client connection, a request's body read whole before it is forwarded (the gate must read
 * a create's body to judge it), the answer streamed back as it comes. No routing, no judgement, no headers looked
 * at. What this proxy does per request against HAProxy in the same rounds, the gate cannot do for less: the gap
 * between the two is the stack's; the gap between the gate and this is the gate's own work.
 */
@ApplicationScoped
public class ProxyFloorApp {

    /** The most a request's body may be (the gate's create bodies are 4 KiB in the bench). */
    private static final int MAX_BODY = 1 << 20;

    @ConfigProperty(name = "floor.proxy.port", defaultValue = "0")
    int port;
    @ConfigProperty(name = "floor.proxy.upstream-host", defaultValue = "127.0.0.1")
    String upstreamHost;
    @ConfigProperty(name = "floor.proxy.upstream-port", defaultValue = "0")
    int upstreamPort;

    void start(@Observes StartupEvent event, Vertx vertx) throws InterruptedException {
        if (port == 0) {
            return;
        }
        boolean epoll = vertx.isNativeTransportEnabled() && Epoll.isAvailable();
        new ServerBootstrap().group(vertx.nettyEventLoopGroup())
                .channelFactory(epoll ? EpollServerSocketChannel::new : NioServerSocketChannel::new)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_BODY), new Client(epoll));
                    }
                })
                .bind("127.0.0.1", port).sync();
        System.out.println("floor: proxy on 127.0.0.1:" + port + " to " + upstreamHost + ":" + upstreamPort
                + (epoll ? " (epoll)" : " (nio)"));
    }

    /** One client connection: its requests go, one at a time, over its own connection to the upstream. */
    private final class Client extends ChannelInboundHandlerAdapter {
        private final boolean epoll;
        private Channel upstream;

        Client(boolean epoll) {
            this.epoll = epoll;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof FullHttpRequest request)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (upstream != null && upstream.isActive()) {
                upstream.writeAndFlush(request);
                return;
            }
            Channel client = ctx.channel();
            new Bootstrap().group(client.eventLoop())
                    .channelFactory(epoll ? EpollSocketChannel::new : NioSocketChannel::new)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpClientCodec(), new Answers(client));
                        }
                    })
                    .connect(upstreamHost, upstreamPort).addListener((ChannelFutureListener) f -> {
                        if (!f.isSuccess()) {
                            request.release();
                            client.close();
                            return;
                        }
                        upstream = f.channel();
                        upstream.writeAndFlush(request);
                    });
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (upstream != null) {
                upstream.close();
            }
        }
    }

    /** The upstream's answer, piece by piece, to the client; flushed at its last piece. */
    private static final class Answers extends ChannelInboundHandlerAdapter {
        private final Channel client;

        Answers(Channel client) {
            this.client = client;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof LastHttpContent) {
                client.writeAndFlush(msg);
            } else {
                client.write(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            client.close();
        }
    }
}
