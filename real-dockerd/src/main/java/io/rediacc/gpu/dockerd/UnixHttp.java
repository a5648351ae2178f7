package io.rediacc.gpu.dockerd;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** One Engine API call over a unix socket (HTTP/1.1, {@code Connection: close}); the JDK's client speaks no unix sockets. */
final class UnixHttp {

    record Response(int status, String body) {
    }

    private UnixHttp() {
    }

    static Response call(Path socket, String method, String path, String contentType, byte[] body) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: docker\r\n")
                    .append("Connection: close\r\n");
            if (body != null) {
                head.append("Content-Type: ").append(contentType).append("\r\nContent-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            write(ch, head.toString().getBytes(StandardCharsets.US_ASCII));
            if (body != null) {
                write(ch, body);
            }
            InputStream in = Channels.newInputStream(ch);
            byte[] all = in.readAllBytes();
            String text = new String(all, StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            if (!text.startsWith("HTTP/1.") || end < 0) {
                throw new IOException("not an HTTP answer from " + socket + ": " + text.substring(0, Math.min(80, text.length())));
            }
            int status = Integer.parseInt(text.substring(9, 12));
            String headers = text.substring(0, end).toLowerCase();
            String payload = text.substring(end + 4);
            return new Response(status, headers.contains("transfer-encoding: chunked") ? dechunk(payload) : payload);
        }
    }

    private static void write(SocketChannel ch, byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    private static String dechunk(String chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < chunked.length()) {
            int eol = chunked.indexOf("\r\n", i);
            if (eol < 0) {
                break;
            }
            int size = Integer.parseInt(chunked.substring(i, eol).split(";")[0].trim(), 16);
            if (size == 0) {
                break;
            }
            // sizes count bytes, the text is UTF-8: the Engine's JSON lines here are ASCII
            out.writeBytes(chunked.substring(eol + 2, Math.min(chunked.length(), eol + 2 + size)).getBytes(StandardCharsets.UTF_8));
            i = eol + 2 + size + 2;
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
