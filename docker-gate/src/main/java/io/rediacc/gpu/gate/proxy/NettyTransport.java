package io.rediacc.gpu.gate.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.vertx.core.Vertx;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The Netty event loops and channel types of the Vert.x instance Quarkus runs on, so the data
 * plane shares Quarkus' threads instead of starting its own. Only Vert.x's public API is used
 * ({@link Vertx#nettyEventLoopGroup()}, {@link Vertx#isNativeTransportEnabled()}): the channel types
 * follow from the loops, epoll's when Vert.x runs on the native transport, NIO's otherwise.
 */
public final class NettyTransport {

    private final EventLoopGroup group;
    private final boolean epoll;

    public NettyTransport(EventLoopGroup group, boolean epoll) {
        this.group = group;
        this.epoll = epoll;
    }

    public static NettyTransport of(Vertx vertx) {
        return new NettyTransport(vertx.nettyEventLoopGroup(), vertx.isNativeTransportEnabled() && Epoll.isAvailable());
    }

    public EventLoopGroup group() {
        return group;
    }

    public ChannelFactory<? extends ServerChannel> serverChannels(SocketEndpoint endpoint) {
        if (domain(endpoint)) {
            return EpollServerDomainSocketChannel::new;
        }
        return epoll ? EpollServerSocketChannel::new : NioServerSocketChannel::new;
    }

    public ChannelFactory<? extends Channel> channels(SocketEndpoint endpoint) {
        if (domain(endpoint)) {
            return EpollDomainSocketChannel::new;
        }
        return epoll ? EpollSocketChannel::new : NioSocketChannel::new;
    }

    public SocketAddress address(SocketEndpoint endpoint) {
        if (domain(endpoint)) {
            return new DomainSocketAddress(endpoint.path().toString());
        }
        return new InetSocketAddress(endpoint.host(), endpoint.port());
    }

    private boolean domain(SocketEndpoint endpoint) {
        if (endpoint.kind() != SocketEndpoint.Kind.UNIX) {
            return false;
        }
        if (!epoll) {
            throw new IllegalStateException("unix socket " + endpoint + " needs the native epoll transport: run on Linux "
                    + "with quarkus.vertx.prefer-native-transport=true (Vert.x runs on the JDK transport now)");
        }
        return true;
    }
}
