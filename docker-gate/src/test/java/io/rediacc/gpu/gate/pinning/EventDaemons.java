package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.gate.policy.BindPins;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.URLDecoder;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Many stand-in repo daemons on unix sockets, all served by one thread ({@code stand-in-daemons}): the part
 * of dockerd the pin watcher talks to. {@code GET /containers/json} and {@code GET /volumes} list what
 * carries the gate's token label; {@code GET /events} answers its head at once and streams the
 * {@code destroy} events, after replaying those of its log at or after {@code since} (whole seconds, as
 * dockerd keeps them). Like dockerd, a stream is subscribed after its head is sent; {@link
 * Daemon#holdSubscriptions} widens that gap at will, so a test can put a removal in it.
 */
final class EventDaemons implements AutoCloseable {

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    EventDaemons() throws IOException {
        selector = Selector.open();
        thread = new Thread(this::loop, "stand-in-daemons");
        thread.setDaemon(true);
        thread.start();
    }

    /** A daemon listening on {@code socket}. */
    Daemon start(Path socket) {
        return call(() -> {
            try {
                ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                server.bind(UnixDomainSocketAddress.of(socket), 512);
                server.configureBlocking(false);
                Daemon d = new Daemon(server);
                server.register(selector, SelectionKey.OP_ACCEPT, d);
                return d;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Runs {@code what} on the daemons' thread and waits for it. */
    <T> T call(Supplier<T> what) {
        CompletableFuture<T> done = new CompletableFuture<>();
        commands.add(() -> {
            try {
                done.complete(what.get());
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        selector.wakeup();
        try {
            return done.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the stand-in daemons did not answer", e);
        }
    }

    void run(Runnable what) {
        call(() -> {
            what.run();
            return null;
        });
    }

    private void loop() {
        try {
            while (!closed) {
                Runnable c;
                while ((c = commands.poll()) != null) {
                    c.run();
                }
                selector.select(key -> {
                    try {
                        if (key.isAcceptable()) {
                            SocketChannel ch = ((ServerSocketChannel) key.channel()).accept();
                            if (ch != null) {
                                ch.configureBlocking(false);
                                ch.register(selector, SelectionKey.OP_READ, new Conn((Daemon) key.attachment(), ch));
                            }
                        } else if (key.isReadable()) {
                            ((Conn) key.attachment()).read();
                        }
                    } catch (IOException e) {
                        key.cancel();
                        closeQuietly(key.channel());
                    }
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws Exception {
        run(() -> selector.keys().forEach(k -> closeQuietly(k.channel())));
        closed = true;
        selector.wakeup();
        thread.join(10_000);
        selector.close();
    }

    private static void closeQuietly(java.nio.channels.Channel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** One daemon; its state is touched on the daemons' thread only ({@link #run}, {@link #call}). */
    final class Daemon {
        private final ServerSocketChannel server;
        final Map<String, String> containers = new LinkedHashMap<>();
        final Map<String, String> volumes = new LinkedHashMap<>();
        private final List<long[]> log = new ArrayList<>(); // {seconds} of each destroy, for `since`
        private final List<Conn> streams = new ArrayList<>();
        private final List<Conn> held = new ArrayList<>();
        private boolean holding;
        private Runnable afterContainerList;
        final AtomicInteger containerLists = new AtomicInteger();
        final AtomicInteger streamRequests = new AtomicInteger();
        final AtomicInteger openStreams = new AtomicInteger();
        volatile String lastEventsQuery = "";
        /** The path of the first request this daemon received. */
        volatile String firstRequest;

        Daemon(ServerSocketChannel server) {
            this.server = server;
        }

        /** A container carrying the gate's token label. */
        void addContainer(String id, String token) {
            run(() -> containers.put(id, token));
        }

        /** Removes it, logs its destroy and tells every subscribed stream. */
        void destroyContainer(String id) {
            run(() -> destroyNow(id));
        }

        /** {@link #destroyContainer} when already on the daemons' thread ({@link EventDaemons#run}). */
        void destroyNowForTest(String id) {
            destroyNow(id);
        }

        private void destroyNow(String id) {
            containers.remove(id);
            log.add(new long[] {System.currentTimeMillis() / 1000});
            byte[] line = event(id);
            for (Conn c : List.copyOf(streams)) {
                c.write(line);
            }
        }

        /** Logs a volume's destroy and tells every subscribed stream. */
        void destroyVolume(String name) {
            run(() -> {
                volumes.remove(name);
                log.add(new long[] {System.currentTimeMillis() / 1000});
                writeToStreams(("{\"Type\":\"volume\",\"Action\":\"destroy\",\"Actor\":{\"ID\":\"" + name
                        + "\",\"Attributes\":{\"driver\":\"local\"}},\"scope\":\"local\",\"time\":"
                        + System.currentTimeMillis() / 1000 + "}\n").getBytes(StandardCharsets.UTF_8));
            });
        }

        /** Sends {@code line} as it is to every subscribed stream. */
        void sendLine(String line) {
            run(() -> writeToStreams((line + "\n").getBytes(StandardCharsets.UTF_8)));
        }

        /** Closes the streams' connections (the daemon keeps listening): the watcher sees them fail. */
        void dropStreams() {
            run(() -> {
                streams.forEach(c -> closeQuietly(c.ch));
                streams.clear();
            });
        }

        private void writeToStreams(byte[] line) {
            for (Conn c : List.copyOf(streams)) {
                c.write(line);
            }
        }

        /** Streams requested from now on get their head but are subscribed only at {@link #releaseSubscriptions}. */
        void holdSubscriptions() {
            run(() -> holding = true);
        }

        void releaseSubscriptions() {
            run(this::releaseNow);
        }

        private void releaseNow() {
            holding = false;
            held.forEach(this::subscribe);
            held.clear();
        }

        /** Runs once on the daemons' thread right after a containers list was sent. */
        void afterNextContainerList(Runnable hook) {
            run(() -> afterContainerList = hook);
        }

        /** The container is removed right after the next list showed it (a removal between a sweep's list and its end). */
        void destroyAfterNextList(String id, boolean thenRelease) {
            afterNextContainerList(() -> {
                destroyNow(id);
                if (thenRelease) {
                    releaseNow();
                }
            });
        }

        void close() {
            run(() -> {
                closeQuietly(server);
                streams.forEach(c -> closeQuietly(c.ch));
            });
        }

        private void subscribe(Conn c) {
            long since = c.since;
            for (long[] e : log) {
                if (since >= 0 && e[0] >= since) {
                    c.write(event("replayed"));
                }
            }
            streams.add(c);
        }

        private byte[] event(String id) {
            return ("{\"Type\":\"container\",\"Action\":\"destroy\",\"status\":\"destroy\",\"id\":\"" + id
                    + "\",\"Actor\":{\"ID\":\"" + id + "\"},\"time\":" + System.currentTimeMillis() / 1000 + "}\n")
                    .getBytes(StandardCharsets.UTF_8);
        }
    }

    private static String list(Map<String, String> tokens, String idKey) {
        StringBuilder b = new StringBuilder("[");
        tokens.forEach((id, token) -> {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append("{\"").append(idKey).append("\":\"").append(id).append("\",\"Labels\":{\"")
                    .append(BindPins.TOKEN_LABEL).append("\":\"").append(token).append("\"}}");
        });
        return b.append(']').toString();
    }

    /** One accepted connection: a request, then an answer (closed after it, HTTP/1.0) or a stream. */
    private final class Conn {
        final Daemon d;
        final SocketChannel ch;
        private final ByteArrayOutputStream in = new ByteArrayOutputStream();
        private boolean answered;
        private boolean stream;
        long since = -1;

        Conn(Daemon d, SocketChannel ch) {
            this.d = d;
            this.ch = ch;
        }

        void read() throws IOException {
            ByteBuffer buf = ByteBuffer.allocate(4096);
            int n = ch.read(buf);
            if (n < 0) {
                gone();
                return;
            }
            if (answered) {
                return;
            }
            in.write(buf.array(), 0, n);
            String text = in.toString(StandardCharsets.ISO_8859_1);
            if (!text.contains("\r\n\r\n")) {
                return;
            }
            answered = true;
            URI target = URI.create(text.substring(0, text.indexOf('\r')).split(" ")[1]);
            String path = target.getPath();
            if (d.firstRequest == null) {
                d.firstRequest = path;
            }
            if (path.equals("/events")) {
                d.streamRequests.incrementAndGet();
                d.lastEventsQuery = URLDecoder.decode(target.getRawQuery() == null ? "" : target.getRawQuery(),
                        StandardCharsets.UTF_8);
                for (String p : d.lastEventsQuery.split("&")) {
                    if (p.startsWith("since=")) {
                        since = Long.parseLong(p.substring("since=".length()).split("\\.")[0]);
                    }
                }
                stream = true;
                d.openStreams.incrementAndGet();
                write("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                if (d.holding) {
                    d.held.add(this);
                } else {
                    d.subscribe(this);
                }
                return;
            }
            String body;
            if (path.equals("/containers/json")) {
                body = list(d.containers, "Id");
            } else if (path.equals("/volumes")) {
                body = "{\"Volumes\":" + list(d.volumes, "Name") + ",\"Warnings\":null}";
            } else {
                body = "{\"message\":\"page not found\"}";
            }
            int status = body.startsWith("{\"message") ? 404 : 200;
            write(("HTTP/1.0 " + status + " X\r\nContent-Type: application/json\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            closeQuietly(ch);
            if (path.equals("/containers/json")) {
                d.containerLists.incrementAndGet();
                Runnable hook = d.afterContainerList;
                d.afterContainerList = null;
                if (hook != null) {
                    hook.run();
                }
            }
        }

        void write(byte[] bytes) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            try {
                while (b.hasRemaining()) {
                    ch.write(b); // small writes to a reader that keeps up: a spin at most
                }
            } catch (IOException e) {
                gone();
            }
        }

        private void gone() {
            closeQuietly(ch);
            if (stream && d.streams.remove(this) | d.held.remove(this)) {
                d.openStreams.decrementAndGet();
            }
        }
    }
}
