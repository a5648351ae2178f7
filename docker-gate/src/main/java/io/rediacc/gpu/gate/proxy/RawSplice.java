package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * A connection after the daemon answered a hijack (attach, exec start: {@code 101 UPGRADED}, or
 * {@code 200} with a raw stream): it is no longer HTTP, so both HTTP codecs are removed and bytes
 * are copied both ways as they come, half-close included. Nothing is judged any more: what was
 * judged is the request that asked for the hijack.
 */
final class RawSplice {

    /**
     * HTTP: not hijacked. SWITCHING: the codecs are being removed, and the bytes they had buffered
     * wait here so that nothing raw passes through an HTTP encoder. SPLICED: bytes go straight through.
     */
    private enum State { HTTP, SWITCHING, SPLICED }

    private final ClientConnection conn;
    private State state = State.HTTP;
    private final ArrayDeque<ByteBuf> toClient = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> toDaemon = new ArrayDeque<>();

    RawSplice(ClientConnection conn) {
        this.conn = conn;
    }

    /** Whether the connection was hijacked: from then on it carries raw bytes, not HTTP. */
    boolean active() {
        return state != State.HTTP;
    }

    /** The daemon answered a hijack: {@code response} goes to the client, then bytes are spliced. */
    void start(HttpResponse response) {
        Channel client = conn.client();
        state = State.SWITCHING;
        conn.budget.enter(ConnectionBudget.Phase.RAW);
        // Removing a decoder hands over the bytes it had buffered; hold them until both codecs are
        // gone so that nothing raw passes through an HTTP encoder, and the 101 goes out first.
        client.write(response);
        client.pipeline().remove(HttpServerCodec.class);
        conn.daemon.channel().pipeline().remove(HttpClientCodec.class);
        state = State.SPLICED;
        Channel daemon = conn.daemon.channel();
        while (!toDaemon.isEmpty()) {
            daemon.write(toDaemon.poll());
        }
        while (!toClient.isEmpty()) {
            client.write(toClient.poll());
        }
        daemon.flush();
        client.flush();
        conn.reads.pause(ClientReads.Reason.BACKLOG, false);
        if (conn.clientInputShut()) {
            conn.shutdownOutputAfterFlush(daemon);
        }
    }

    void fromClient(Object msg) {
        ByteBuf data = unwrap(msg);
        if (data == null) {
            return;
        }
        if (state == State.SWITCHING) {
            toDaemon.add(data);
            return;
        }
        conn.daemon.sendRaw(data);
    }

    void fromDaemon(Object msg) {
        ByteBuf data = unwrap(msg);
        if (data == null) {
            return;
        }
        if (state == State.SWITCHING) {
            toClient.add(data);
            return;
        }
        conn.toClient(data);
    }

    /** The client sent its last byte: the daemon's input ends too, and the splice with both. */
    void clientInputShut() {
        conn.shutdownOutputAfterFlush(conn.daemon.channel());
        if (conn.daemon.inputShut()) {
            conn.closeBoth();
        }
    }

    /** The daemon sent its last byte: the client's input ends too, and the splice with both. */
    void daemonInputShut() {
        conn.shutdownOutputAfterFlush(conn.client());
        if (conn.clientInputShut()) {
            conn.closeBoth();
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
}
