package io.rediacc.gpu.gate.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** Sends hand-made bytes to a gate listener and reads what comes back: for framing and parser tricks. */
public final class RawHttp {

    private RawHttp() {
    }

    /** Writes {@code request}, then reads until the gate closes the connection or 3 s pass quietly. */
    public static String exchange(SocketAddress gate, String request) {
        InetSocketAddress address = (InetSocketAddress) gate;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", address.getPort()), 3000);
            socket.setSoTimeout(3000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                }
            } catch (SocketTimeoutException quiet) {
                // the gate kept the connection open: return what arrived
            } catch (IOException reset) {
                // a reset after the response is fine: what arrived counts
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends one request with a UTF-8 body and {@code Connection: close}; returns the raw answer. */
    public static String request(SocketAddress gate, String method, String target, String extraHeaders, String body) {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + target + " HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n" + extraHeaders
                + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n")
                + "\r\n";
        return exchange(gate, head + new String(bytes, StandardCharsets.ISO_8859_1));
    }

    /** Writes {@code request}, closes the write side (half-close), then reads like {@link #exchange}. */
    public static String sendThenHalfClose(SocketAddress gate, String request) {
        InetSocketAddress address = (InetSocketAddress) gate;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", address.getPort()), 3000);
            socket.setSoTimeout(3000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            socket.shutdownOutput();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                socket.getInputStream().transferTo(out);
            } catch (IOException quietOrReset) {
                // what arrived counts
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every status code in {@code raw}, in order (pipelined responses). */
    public static java.util.List<Integer> statuses(String raw) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("HTTP/1\\.[01] (\\d{3}) ").matcher(raw);
        while (m.find()) {
            out.add(Integer.parseInt(m.group(1)));
        }
        return out;
    }

    /** The status code of the first response in {@code raw}, or -1. */
    public static int status(String raw) {
        if (!raw.startsWith("HTTP/1.")) {
            return -1;
        }
        return Integer.parseInt(raw.substring(9, 12));
    }

    /** {@link #request} straight to a daemon's unix socket, for what the daemon itself answers. */
    public static String requestUnix(java.nio.file.Path socket, String method, String target, String body) {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String request = method + " " + target + " HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n"
                + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n")
                + "\r\n" + new String(bytes, StandardCharsets.ISO_8859_1);
        try (java.nio.channels.SocketChannel channel = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(socket))) {
            channel.write(java.nio.ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(8192);
            while (channel.read(buf) >= 0) {
                out.write(buf.array(), 0, buf.position());
                buf.clear();
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
