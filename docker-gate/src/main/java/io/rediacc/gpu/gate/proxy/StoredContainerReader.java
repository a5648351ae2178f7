package io.rediacc.gpu.gate.proxy;

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
import io.netty.util.concurrent.Promise;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Asks a repo's daemon for a container's stored configuration ({@code GET /containers/{id}/json}),
 * so that a start can be re-checked against the grants held now, or for a named volume
 * ({@code GET /volumes/{name}}), on a connection of its own.
 */
final class StoredContainerReader {

    /** The daemon's answer: its status and body. */
    record Answer(int status, byte[] body) {
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final java.util.regex.Pattern FULL_ID = java.util.regex.Pattern.compile("[0-9a-f]{64}");

    private StoredContainerReader() {
    }

    /**
     * The container's full ID from the daemon's inspect answer (its {@code Id}: 64 lower-case hex
     * digits), or null when the answer has none, has it twice, or is not JSON.
     */
    static String fullId(byte[] inspectAnswer) {
        try {
            com.fasterxml.jackson.databind.JsonNode id = JSON.readTree(inspectAnswer).get("Id");
            return id != null && id.isTextual() && FULL_ID.matcher(id.asText()).matches() ? id.asText() : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    static Promise<Answer> read(DataPlane plane, SocketEndpoint daemon, EventLoop loop, String containerId) {
        // The id comes percent-decoded from the policy; encode it again as one path segment.
        return get(plane, daemon, loop, "/containers/" + segment(containerId) + "/json");
    }

    /** {@code GET /volumes/{name}}: how a named volume a request uses is backed. */
    static Promise<Answer> readVolume(DataPlane plane, SocketEndpoint daemon, EventLoop loop, String name) {
        return get(plane, daemon, loop, "/volumes/" + segment(name));
    }

    private static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static Promise<Answer> get(DataPlane plane, SocketEndpoint daemon, EventLoop loop, String path) {
        Promise<Answer> answer = loop.newPromise();
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channelFactory(plane.transport().channels(daemon))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) plane.daemonConnectTimeout().toMillis())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(
                                new ReadTimeoutHandler(plane.daemonInspectTimeout().toMillis(), TimeUnit.MILLISECONDS),
                                new HttpClientCodec(DataPlane.responseDecoderConfig(), false, false),
                                new HttpObjectAggregator(DataPlane.MAX_INSPECT_BYTES),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
                                        answer.trySuccess(new Answer(response.status().code(),
                                                ByteBufUtil.getBytes(response.content())));
                                        ctx.close();
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        answer.tryFailure(new IllegalStateException("the daemon closed the connection"));
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        answer.tryFailure(cause);
                                        ctx.close();
                                    }
                                });
                    }
                });
        bootstrap.connect(plane.transport().address(daemon)).addListener((ChannelFutureListener) connected -> {
            if (!connected.isSuccess()) {
                answer.tryFailure(connected.cause());
                return;
            }
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            request.headers().set(HttpHeaderNames.HOST, "docker");
            connected.channel().writeAndFlush(request);
        });
        return answer;
    }
}
