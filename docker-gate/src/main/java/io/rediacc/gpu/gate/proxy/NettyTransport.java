package io.rediacc.gpu.gate.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.spi.transport.Transport;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The Netty event loops and channel types of the Vert.x instance Quarkus runs on, so the data
 * plane shares Quarkus' threads instead of starting its own.
 */
public final class NettyTransport {

    private final EventLoopGroup group;
    private final Transport transport;

    public NettyTransport(EventLoopGroup group, Transport transport) {
        this.group = group;
        this.transport = transport;
    }

    public static NettyTransport of(Vertx vertx) {
        VertxInternal internal = (VertxInternal) vertx;
        return new NettyTransport(internal.getEventLoopGroup(), internal.transport());
    }

    public EventLoopGroup group() {
        return group;
    }

    public ChannelFactory<? extends ServerChannel> serverChannels(SocketEndpoint endpoint) {
        return transport.serverChannelFactory(domain(endpoint));
    }

    public ChannelFactory<? extends Channel> channels(SocketEndpoint endpoint) {
        return transport.channelFactory(domain(endpoint));
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
        if (!transport.supportsDomainSockets()) {
            throw new IllegalStateException("unix socket " + endpoint + " needs the native epoll transport: run on Linux "
                    + "with quarkus.vertx.prefer-native-transport=true (Vert.x runs on the JDK transport now)");
        }
        return true;
    }
}
