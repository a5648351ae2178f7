package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.gate.daemon.GateUserAgent;

import io.rediacc.gpu.contracts.manifest.SocketEndpoint;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The pin watcher's own plain HTTP/1.0 client for a repo daemon (blocking, on the watcher's
 * thread): the daemon answers HTTP/1.0 without chunking and closes at the end, so a body is
 * everything after the head, and the event stream is lines of JSON until the connection ends.
 */
final class DaemonHttp implements AutoCloseable {

    /** What one call answered. */
    record Answer(int status, byte[] body) {
    }

    private final AutoCloseable channel;
    private final InputStream in;
    private final OutputStream out;

    private DaemonHttp(AutoCloseable channel, InputStream in, OutputStream out) {
        this.channel = channel;
        this.in = new BufferedInputStream(in);
        this.out = out;
    }

    static DaemonHttp connect(SocketEndpoint daemon, int readTimeoutMillis) throws IOException {
        if (daemon.kind() == SocketEndpoint.Kind.UNIX) {
            SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(daemon.path()));
            return new DaemonHttp(ch, Channels.newInputStream(ch), Channels.newOutputStream(ch));
        }
        Socket s = new Socket();
        s.connect(new InetSocketAddress(daemon.host(), daemon.port()), 10_000);
        s.setSoTimeout(readTimeoutMillis);
        return new DaemonHttp(s, s.getInputStream(), s.getOutputStream());
    }

    /** {@code GET path}: the whole answer. */
    static Answer get(SocketEndpoint daemon, String path) throws IOException {
        try (DaemonHttp http = connect(daemon, 30_000)) {
            int status = http.request(path);
            return new Answer(status, http.in.readNBytes(64 * 1024 * 1024));
        }
    }

    /** {@code GET path}: each line of the answer to {@code line} until the daemon ends it; the status. */
    int stream(String path, Consumer<String> line) throws IOException {
        int status = request(path);
        if (status != 200) {
            return status;
        }
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                line.accept(current.toString(StandardCharsets.UTF_8));
                current.reset();
            } else if (current.size() < 1024 * 1024) {
                current.write(b);
            }
        }
        return status;
    }

    private int request(String path) throws IOException {
        out.write(("GET " + path + " HTTP/1.0\r\nHost: docker\r\nUser-Agent: " + GateUserAgent.VALUE + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String statusLine = headLine();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP answer: " + statusLine);
        }
        while (!headLine().isEmpty()) {
            // headers: nothing needed
        }
        try {
            return Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status: " + statusLine);
        }
    }

    private String headLine() throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r' && line.length() < 16 * 1024) {
                line.append((char) b);
            }
        }
        if (b < 0 && line.length() == 0) {
            throw new IOException("the daemon closed the connection");
        }
        return line.toString();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (Exception ignored) {
            // closing
        }
    }
}
