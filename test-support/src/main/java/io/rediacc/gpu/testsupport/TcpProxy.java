package io.rediacc.gpu.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder that can cut the line: while {@link #disconnect()}ed it closes every open
 * connection and refuses new ones, which is what a broker outage looks like to a client.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private volatile int targetPort;
    private volatile boolean connected = true;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    public TcpProxy(int listenPort, String targetHost, int targetPort) throws IOException {
        this.server = new ServerSocket();
        this.server.setReuseAddress(true);
        this.server.bind(new InetSocketAddress("127.0.0.1", listenPort));
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + listenPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public void retarget(int port) {
        this.targetPort = port;
    }

    /** Closes every connection and refuses new ones until {@link #reconnect()}. */
    public void disconnect() {
        connected = false;
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    public void reconnect() {
        connected = true;
    }

    @Override
    public void close() {
        disconnect();
        closeQuietly(server);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (!connected) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // accept failed because we are closing, or the target refused: the client sees a closed socket
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // already closed
        }
    }
}
