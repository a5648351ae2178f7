package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.rediacc.gpu.gate.policy.AdvertisedApiVersion;

import java.util.ArrayDeque;

/**
 * On a connection to a daemon, between its HTTP codec and the connection's handler: passes the
 * daemon's answers on with the API version they advertise capped at what the gate judges
 * ({@link AdvertisedApiVersion}): the {@code Api-Version} header of every answer, and the body of
 * {@code GET /version}, which is held (it is about a kilobyte) until complete and passed on with
 * its new length. Raw bytes after a hijack pass untouched.
 */
final class AdvertisedVersionCap extends ChannelDuplexHandler {

    /** A version body above this is no daemon's: it passes as it came. */
    private static final int MAX_VERSION_BODY = 64 * 1024;

    /** For each request sent and not yet answered: whether it is a {@code GET /version}. */
    private final ArrayDeque<Boolean> versionRequests = new ArrayDeque<>();
    private HttpResponse heldHead;
    private CompositeByteBuf heldBody;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpRequest request) {
            versionRequests.add(AdvertisedApiVersion.isVersionRequest(request.method().name(), request.uri()));
        }
        super.write(ctx, msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpResponse response) {
            String advertised = response.headers().get(AdvertisedApiVersion.HEADER);
            if (advertised != null) {
                response.headers().set(AdvertisedApiVersion.HEADER, AdvertisedApiVersion.header(advertised));
            }
            boolean interim = response.status().codeClass() == HttpStatusClass.INFORMATIONAL && response.status().code() != 101;
            boolean version = !interim && Boolean.TRUE.equals(versionRequests.poll());
            if (version && response.status().code() == 200) {
                // A head that carries content too is passed on as a head alone, its content after it.
                heldHead = msg instanceof HttpContent
                        ? new DefaultHttpResponse(response.protocolVersion(), response.status(), response.headers().copy())
                        : response;
                heldBody = ctx.alloc().compositeBuffer();
                if (msg instanceof HttpContent content) {
                    hold(ctx, content);
                }
                return;
            }
        } else if (msg instanceof HttpContent content && heldHead != null) {
            hold(ctx, content);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void hold(ChannelHandlerContext ctx, HttpContent content) {
        heldBody.addComponent(true, content.content().retain());
        boolean last = content instanceof LastHttpContent;
        LastHttpContent trailer = last ? (LastHttpContent) content : null;
        if (last) {
            byte[] body = AdvertisedApiVersion.versionBody(ByteBufUtil.getBytes(heldBody));
            HttpResponse head = heldHead;
            LastHttpContent rewritten = new DefaultLastHttpContent(Unpooled.wrappedBuffer(body));
            rewritten.trailingHeaders().set(trailer.trailingHeaders());
            content.release();
            releaseHeld();
            head.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
            head.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            ctx.fireChannelRead(head);
            ctx.fireChannelRead(rewritten);
            return;
        }
        content.release();
        if (heldBody.readableBytes() > MAX_VERSION_BODY) {
            HttpResponse head = heldHead;
            CompositeByteBuf body = heldBody;
            heldHead = null;
            heldBody = null;
            ctx.fireChannelRead(head);
            ctx.fireChannelRead(new DefaultHttpContent(body));
        }
    }

    private void releaseHeld() {
        if (heldBody != null) {
            heldBody.release();
        }
        heldHead = null;
        heldBody = null;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseHeld();
        super.channelInactive(ctx);
    }
}
