package io.rediacc.gpu.gate.pinning;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.contracts.manifest.RepoEntry;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.daemon.GateUserAgent;
import io.rediacc.gpu.gate.policy.BindPins;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.VolumeAnswers;
import org.jboss.logging.Logger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URLEncoder;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * Follows each repo daemon so pins go with their owners: it reads the daemon's {@code destroy} events
 * of containers and volumes ({@code GET /events}: also the removals the daemon does itself,
 * {@code --rm}/AutoRemove and removals at its boot) and sweeps the repo's pins against the daemon's
 * lists ({@code GET /containers/json?all=1}, {@code GET /volumes}, filtered by the gate's token label)
 * on each such event and on every (re)connection; each stream asks the daemon to end it after
 * {@link #SWEEP_INTERVAL} ({@code until}), so a quiet repo is swept that often too. A daemon that cannot
 * be followed is tried again with a growing delay ({@link #RETRY}, doubling up to {@link #SWEEP_INTERVAL}),
 * warned about once until it answers again. {@link #serve} starts and stops repos as the manifest
 * changes; {@link #close} stops all.
 * <p>
 * One thread ({@link #THREAD_NAME}) for every repo: the event streams and the lists are non-blocking
 * channels on one selector (a thread per repo, with its stack and buffers, ran the gate's 26 MiB heap
 * out of memory at 1,000 repos). Sweeps coalesce: a repo is queued at most once, an event during its
 * sweep queues one more after it, and at most {@link #SWEEPS_AT_ONCE} run at a time, so a burst of
 * destroys costs one sweep per repo, not one per event.
 * <p>
 * Order at each connection: the stream is requested first and the sweep starts only once the daemon
 * answered it, so a removal after the sweep listed is in the stream. dockerd sends the stream's head
 * before it subscribes (moby's {@code getEvents}), so the request also carries {@code since} a second
 * before it was sent: the daemon replays the destroys of that gap from its event log.
 * <p>
 * The same streams vouch for the volume answers the data plane keeps ({@link VolumeAnswers}): a daemon's
 * answers are kept only while one of its streams is live, and a volume's is forgotten at its destroy.
 */
public final class PinWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PinWatch.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Between sweeps of a repo while its event stream is quiet. */
    public static final Duration SWEEP_INTERVAL = Duration.ofMinutes(10);
    /** Before reconnecting to a daemon that did not answer (doubling at each failure, up to {@link #SWEEP_INTERVAL}). */
    static final Duration RETRY = Duration.ofSeconds(5);
    /** For the head of an answer, and between the reads of a list's body. */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);
    /** Sweeps in flight at once, over all repos (each holds two connections and a list's bytes). */
    static final int SWEEPS_AT_ONCE = 2;
    /** The watcher's one thread. */
    public static final String THREAD_NAME = "gate-pin-watch";

    /** A stream still open this long after its {@code until} is taken for dead (the daemon should have ended it). */
    private static final Duration STREAM_GRACE = Duration.ofMinutes(1);
    private static final int MAX_HEAD = 16 * 1024;
    private static final int MAX_LINE = 1024 * 1024;
    private static final int MAX_LIST = 64 * 1024 * 1024;
    private static final long NONE = Long.MAX_VALUE;

    private static final String EVENTS = "/events?filters=" + URLEncoder.encode(
            "{\"type\":[\"container\",\"volume\"],\"event\":[\"destroy\"]}", StandardCharsets.UTF_8);
    private static final String LABEL_FILTER = URLEncoder.encode("{\"label\":[\"" + BindPins.TOKEN_LABEL + "\"]}",
            StandardCharsets.UTF_8);
    private static final String CONTAINERS = "/containers/json?all=1&filters=" + LABEL_FILTER;
    private static final String VOLUMES = "/volumes?filters=" + LABEL_FILTER;

    private final Pins pins;
    private final Function<RepoEntry, RepoIdentity> identity;
    /** Told which daemons' volume destroys are followed now, and of each destroy (see {@link VolumeAnswers}). */
    private final VolumeAnswers volumes;
    private final Selector selector;
    private final Thread thread;
    /** Work handed to the watch thread by other threads ({@link #serve}). */
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    // The watch thread's alone from here on.
    private final Map<String, Repo> repos = new HashMap<>();
    private final Set<Exchange> open = new HashSet<>();
    private final ArrayDeque<Repo> sweepQueue = new ArrayDeque<>();
    private int sweeping;
    private boolean pumping;
    /** The earliest retry or answer deadline (System.nanoTime), {@link #NONE} when there is none. */
    private long nextDue = NONE;
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(16 * 1024);
    private final byte[] chunk = new byte[16 * 1024];

    public PinWatch(Pins pins, Function<RepoEntry, RepoIdentity> identity) {
        this(pins, identity, new VolumeAnswers());
    }

    /** @param volumes kept answers of the daemons' volumes, which this watcher's streams vouch for */
    public PinWatch(Pins pins, Function<RepoEntry, RepoIdentity> identity, VolumeAnswers volumes) {
        this.pins = pins;
        this.identity = identity;
        this.volumes = volumes;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("the pin watcher's selector", e);
        }
        this.thread = new Thread(this::loop, THREAD_NAME);
        thread.setDaemon(true);
        thread.start();
    }

    /** Watches the daemons of {@code manifest}'s repos (started, stopped, restarted on a change). */
    public void serve(ReposManifest manifest) {
        Map<String, Target> wanted = new LinkedHashMap<>();
        for (RepoEntry repo : manifest.repos()) {
            String key = repo.guid() + " " + repo.daemon();
            wanted.putIfAbsent(key, new Target(key, identity.apply(repo), repo.daemon()));
        }
        command(() -> {
            List<Repo> gone = new ArrayList<>();
            repos.values().removeIf(r -> {
                if (!wanted.containsKey(r.key)) {
                    gone.add(r);
                    return true;
                }
                return false;
            });
            gone.forEach(this::stop);
            for (Target t : wanted.values()) {
                if (!repos.containsKey(t.key())) {
                    Repo r = new Repo(t);
                    repos.put(t.key(), r);
                    connect(r);
                }
            }
            pumpSweeps();
        });
    }

    private record Target(String key, RepoIdentity repo, SocketEndpoint daemon) {
    }

    private void command(Runnable c) {
        commands.add(c);
        selector.wakeup();
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(Duration.ofSeconds(10).toMillis()); // a sweep in progress finishes its Pins call first
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        try {
            while (!closed) {
                Runnable c;
                while ((c = commands.poll()) != null) {
                    c.run();
                }
                long now = System.nanoTime();
                if (nextDue != NONE && now - nextDue >= 0) {
                    due(now);
                }
                long wait = nextDue == NONE ? 0 : Math.max(1, (nextDue - now) / 1_000_000);
                selector.select(key -> ((Exchange) key.attachment()).ready(), wait);
            }
        } catch (IOException | RuntimeException e) {
            LOG.errorf(e, "the pin watcher stopped: pins of removed containers and volumes stay until the gate restarts");
        } finally {
            repos.values().forEach(this::stop);
            repos.clear();
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    /** Retries that are due, answers that are late; the next deadline. */
    private void due(long now) {
        nextDue = NONE;
        for (Exchange x : List.copyOf(open)) {
            x.checkLate(now);
        }
        for (Repo r : List.copyOf(repos.values())) {
            if (r.retryAt != NONE && r.stream == null && !r.stopped) {
                if (now - r.retryAt >= 0) {
                    r.retryAt = NONE;
                    connect(r);
                } else {
                    dueAt(r.retryAt);
                }
            }
        }
        pumpSweeps();
    }

    private void dueAt(long at) {
        if (nextDue == NONE || at - nextDue < 0) {
            nextDue = at;
        }
    }

    // ---- one repo's event stream

    /** One repo daemon's state: its event stream (or when to try it again) and its sweep. */
    private static final class Repo {
        final String key;
        final RepoIdentity repo;
        final SocketEndpoint daemon;
        boolean stopped;
        Exchange stream;
        /** The stream answered and {@link #volumes} counts it live; cleared with {@link #streamGone}. */
        boolean vouching;
        long connectedAt;
        long retryAt = NONE;
        long backoffMillis = RETRY.toMillis();
        boolean warned;
        boolean queued;
        boolean sweepingNow;
        boolean again;
        Exchange list;

        Repo(Target t) {
            this.key = t.key();
            this.repo = t.repo();
            this.daemon = t.daemon();
        }
    }

    private void connect(Repo r) {
        long nowSeconds = System.currentTimeMillis() / 1000;
        // since: a second before this request, so the destroys between the daemon's head and its subscription come too
        // until: the daemon ends the stream then, and the next connection sweeps again (the periodic sweep)
        String path = EVENTS + "&since=" + (nowSeconds - 1) + "&until=" + (nowSeconds + SWEEP_INTERVAL.toSeconds());
        r.connectedAt = System.nanoTime();
        Exchange x = new Exchange(r.daemon, path, null);
        x.sink = new StreamSink(r, x);
        r.stream = x;
        x.start();
    }

    private final class StreamSink implements Sink {
        private final Repo r;
        private final Exchange x;
        private ByteArrayOutputStream partial;
        private boolean overlong;

        StreamSink(Repo r, Exchange x) {
            this.r = r;
            this.x = x;
        }

        @Override
        public void head(int status) throws IOException {
            if (status != 200) {
                throw new IOException("GET /events answered " + status);
            }
            r.warned = false;
            r.vouching = true;
            volumes.streamLive(r.daemon);
            // quiet is normal now: the daemon ends the stream at `until`
            x.lateAfterNanos = SWEEP_INTERVAL.plus(STREAM_GRACE).toNanos();
            requestSweep(r);
        }

        @Override
        public void body(byte[] b, int off, int len) {
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    if (partial == null && !overlong) {
                        line(b, start, i - start);
                    } else {
                        append(b, start, i - start);
                        boolean cut = overlong;
                        byte[] whole = partial == null ? new byte[0] : partial.toByteArray();
                        partial = null;
                        overlong = false;
                        if (cut) {
                            requestSweep(r); // cannot be read whole: sweeping costs less than missing a destroy
                            volumes.forgetAll(r.daemon);
                        } else {
                            line(whole, 0, whole.length);
                        }
                    }
                    start = i + 1;
                }
            }
            if (start < off + len) {
                append(b, start, off + len - start);
            }
        }

        private void append(byte[] b, int off, int len) {
            if (overlong) {
                return;
            }
            if (partial == null) {
                partial = new ByteArrayOutputStream(Math.max(len, 256));
            }
            if (partial.size() + len > MAX_LINE) {
                overlong = true;
                partial = null;
            } else {
                partial.write(b, off, len);
            }
        }

        private void line(byte[] b, int off, int len) {
            DestroyEvent event = DestroyEvent.read(b, off, len);
            if (event == null) {
                volumes.forgetAll(r.daemon); // unreadable: it may have been a volume's destroy
                return;
            }
            if (!event.destroy()) {
                return;
            }
            requestSweep(r);
            if (event.volume() != null) {
                volumes.destroyed(r.daemon, event.volume());
            } else if (!event.container()) {
                volumes.forgetAll(r.daemon); // a destroy of a volume without its name, or of something else
            }
        }

        @Override
        public void end() {
            if (r.stream != x) {
                return;
            }
            r.stream = null;
            streamGone(r);
            if (System.nanoTime() - r.connectedAt > SWEEP_INTERVAL.toNanos() / 2) {
                r.backoffMillis = RETRY.toMillis();
                connect(r); // the daemon ended the stream at `until`, as asked
            } else {
                retryLater(r); // ended early: a daemon that does not stream events; back off rather than spin
            }
        }

        @Override
        public void failed(IOException e) {
            if (r.stream != x) {
                return;
            }
            r.stream = null;
            streamGone(r);
            if (!r.warned) {
                LOG.warnf("pins of repo %s: following its daemon %s failed (%s); retrying after %d s, then less often"
                        + " (at most every %d min)", r.repo.name(), r.daemon, e.getMessage(), r.backoffMillis / 1000,
                        SWEEP_INTERVAL.toMinutes());
                r.warned = true;
            }
            retryLater(r);
        }
    }

    private void retryLater(Repo r) {
        if (r.stopped) {
            return;
        }
        r.retryAt = System.nanoTime() + r.backoffMillis * 1_000_000;
        dueAt(r.retryAt);
        r.backoffMillis = Math.min(r.backoffMillis * 2, SWEEP_INTERVAL.toMillis());
    }

    /** The repo's stream stopped vouching for its daemon's volumes (once per {@code streamLive}). */
    private void streamGone(Repo r) {
        if (r.vouching) {
            r.vouching = false;
            volumes.streamGone(r.daemon);
        }
    }

    private void stop(Repo r) {
        r.stopped = true;
        r.retryAt = NONE;
        streamGone(r);
        if (r.stream != null) {
            r.stream.close();
            r.stream = null;
        }
        if (r.list != null) {
            r.list.close();
            r.list = null;
        }
        if (r.sweepingNow) {
            r.sweepingNow = false;
            sweeping--;
        }
    }

    /**
     * One line of the event stream: whether it is a {@code destroy} (the daemon filters; the gate checks again),
     * whether of a container, and the volume's name when of a volume ({@code Actor.ID}).
     */
    record DestroyEvent(boolean destroy, boolean container, String volume) {

        /** The event, or null when the line is not a JSON object. */
        static DestroyEvent read(byte[] b, int off, int len) {
            JsonNode event;
            try {
                event = JSON.readTree(b, off, len);
            } catch (IOException | RuntimeException e) {
                return null;
            }
            if (event == null || !event.isObject()) {
                return null;
            }
            boolean destroy = "destroy".equals(event.path("Action").asText(event.path("status").asText()));
            String type = event.path("Type").asText("");
            JsonNode id = event.path("Actor").path("ID");
            String volume = "volume".equals(type) && id.isTextual() && !id.asText().isEmpty() ? id.asText() : null;
            return new DestroyEvent(destroy, "container".equals(type), volume);
        }
    }

    // ---- sweeps

    private void requestSweep(Repo r) {
        if (r.stopped) {
            return;
        }
        if (r.sweepingNow) {
            r.again = true; // its lists may be older than this event: one more after it
            return;
        }
        if (!r.queued) {
            r.queued = true;
            sweepQueue.add(r);
        }
        pumpSweeps();
    }

    private void pumpSweeps() {
        if (pumping) {
            return; // a sweep that failed at once calls back in here: the loop below goes on with the queue
        }
        pumping = true;
        try {
            while (sweeping < SWEEPS_AT_ONCE && !sweepQueue.isEmpty()) {
                Repo r = sweepQueue.poll();
                r.queued = false;
                if (!r.stopped) {
                    startSweep(r);
                }
            }
        } finally {
            pumping = false;
        }
    }

    private void startSweep(Repo r) {
        r.sweepingNow = true;
        sweeping++;
        long listedAfter = pins.commitMark(); // before the lists are read (Pins.sweep)
        listThen(r, CONTAINERS, containers -> listThen(r, VOLUMES, volumes -> {
            int removed = pins.sweep(r.repo.guid(), tokens(containers, false), tokens(volumes, true),
                    System.currentTimeMillis(), listedAfter);
            if (removed > 0) {
                LOG.debugf("removed %d pin(s) of repo %s", removed, r.repo.name());
            }
            sweepDone(r);
        }));
    }

    private interface ListDone {
        void accept(byte[] body) throws IOException;
    }

    private void listThen(Repo r, String path, ListDone then) {
        Exchange x = new Exchange(r.daemon, path, null);
        x.sink = new Sink() {
            private final ByteArrayOutputStream body = new ByteArrayOutputStream(1024);

            @Override
            public void head(int status) throws IOException {
                if (status != 200) {
                    throw new IOException("GET " + path.substring(0, path.indexOf('?')) + " answered " + status);
                }
            }

            @Override
            public void body(byte[] b, int off, int len) throws IOException {
                if (body.size() + len > MAX_LIST) {
                    throw new IOException("the daemon's list is larger than " + (MAX_LIST >> 20) + " MiB");
                }
                body.write(b, off, len);
            }

            @Override
            public void end() {
                if (r.list != x) {
                    return;
                }
                r.list = null;
                try {
                    then.accept(body.toByteArray());
                } catch (IOException | RuntimeException e) {
                    sweepFailed(r, e);
                }
            }

            @Override
            public void failed(IOException e) {
                if (r.list == x) {
                    r.list = null;
                    sweepFailed(r, e);
                }
            }
        };
        r.list = x;
        x.start();
    }

    private void sweepDone(Repo r) {
        if (!r.sweepingNow) {
            return; // stopped meanwhile
        }
        r.sweepingNow = false;
        sweeping--;
        if (r.again) {
            r.again = false;
            requestSweep(r);
        }
        pumpSweeps();
    }

    /** The stream goes too: its reconnection (with backoff, warned once) sweeps again. */
    private void sweepFailed(Repo r, Exception e) {
        r.again = false;
        sweepDone(r);
        IOException cause = e instanceof IOException io ? io : new IOException("sweep: " + e, e);
        if (r.stream != null) {
            r.stream.fail(cause);
        }
    }

    private static Set<String> tokens(byte[] body, boolean volumes) throws IOException {
        JsonNode root = JSON.readTree(body);
        JsonNode list = root == null ? null : volumes ? root.path("Volumes") : root;
        if (list == null || !list.isArray() && !(volumes && list.isNull())) {
            throw new IOException("the daemon's list is not an array");
        }
        Set<String> tokens = new HashSet<>();
        for (JsonNode item : list) {
            JsonNode token = item.path("Labels").path(BindPins.TOKEN_LABEL);
            if (token.isTextual()) {
                tokens.add(token.asText());
            }
        }
        return tokens;
    }

    // ---- one GET over a non-blocking channel

    /** What an exchange tells its owner, on the watch thread; an exception thrown fails the exchange. */
    private interface Sink {
        void head(int status) throws IOException;

        void body(byte[] b, int off, int len) throws IOException;

        /** The daemon ended the answer (HTTP/1.0: it closes the connection). */
        void end() throws IOException;

        /** Not called after {@link Exchange#close} by the owner. */
        void failed(IOException e);
    }

    /**
     * One {@code GET} to a repo daemon as HTTP/1.0: the daemon answers without chunking and closes at the
     * end, so a body is everything after the head, and the event stream is lines of JSON until it ends.
     */
    private final class Exchange {
        private final SocketEndpoint daemon;
        private ByteBuffer request;
        Sink sink;
        private SocketChannel channel;
        private SelectionKey key;
        private ByteArrayOutputStream head = new ByteArrayOutputStream(256);
        long lateAfterNanos = ANSWER_TIMEOUT.toNanos();
        private long lastHeard;
        private boolean closed;

        Exchange(SocketEndpoint daemon, String path, Sink sink) {
            this.daemon = daemon;
            this.sink = sink;
            this.request = ByteBuffer.wrap(("GET " + path + " HTTP/1.0\r\nHost: docker\r\nUser-Agent: "
                    + GateUserAgent.VALUE + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        }

        void start() {
            open.add(this);
            lastHeard = System.nanoTime();
            dueAt(lastHeard + lateAfterNanos);
            try {
                SocketAddress address;
                if (daemon.kind() == SocketEndpoint.Kind.UNIX) {
                    channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                    address = UnixDomainSocketAddress.of(daemon.path());
                } else {
                    channel = SocketChannel.open();
                    address = new InetSocketAddress(daemon.host(), daemon.port());
                }
                channel.configureBlocking(false);
                boolean connected = channel.connect(address);
                key = channel.register(selector, connected ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT, this);
            } catch (IOException | RuntimeException e) {
                fail(e instanceof IOException io ? io : new IOException(e.toString(), e));
            }
        }

        void ready() {
            if (closed || !key.isValid()) {
                return;
            }
            try {
                if (key.isConnectable()) {
                    if (!channel.finishConnect()) {
                        return;
                    }
                    key.interestOps(SelectionKey.OP_WRITE);
                }
                if ((key.interestOps() & SelectionKey.OP_WRITE) != 0) {
                    channel.write(request);
                    if (!request.hasRemaining()) {
                        request = null; // a thousand streams held theirs for nothing
                        key.interestOps(SelectionKey.OP_READ);
                    }
                    return;
                }
                if (key.isReadable()) {
                    read();
                }
            } catch (IOException e) {
                fail(e);
            } catch (RuntimeException e) {
                fail(new IOException(e.toString(), e));
            }
        }

        private void read() throws IOException {
            readBuffer.clear();
            int n = channel.read(readBuffer);
            if (n < 0) {
                if (head != null) {
                    throw new IOException("the daemon closed the connection");
                }
                close();
                sink.end();
                return;
            }
            if (n == 0) {
                return;
            }
            lastHeard = System.nanoTime();
            readBuffer.flip();
            readBuffer.get(chunk, 0, n);
            if (head == null) {
                sink.body(chunk, 0, n);
                return;
            }
            int scanFrom = Math.max(0, head.size() - 3);
            head.write(chunk, 0, n);
            byte[] h = head.toByteArray();
            int end = headEnd(h, scanFrom);
            if (end < 0) {
                if (h.length > MAX_HEAD) {
                    throw new IOException("the daemon's answer has no end of its head within " + MAX_HEAD + " bytes");
                }
                return;
            }
            head = null;
            sink.head(status(h));
            if (!closed && end < h.length) {
                sink.body(h, end, h.length - end);
            }
        }

        /** Where the body starts (after the blank line), or -1. */
        private static int headEnd(byte[] h, int from) {
            for (int i = from; i < h.length; i++) {
                if (h[i] == '\n') {
                    if (i + 1 < h.length && h[i + 1] == '\n') {
                        return i + 2;
                    }
                    if (i + 2 < h.length && h[i + 1] == '\r' && h[i + 2] == '\n') {
                        return i + 3;
                    }
                }
            }
            return -1;
        }

        private static int status(byte[] h) throws IOException {
            int eol = 0;
            while (eol < h.length && h[eol] != '\n' && h[eol] != '\r') {
                eol++;
            }
            String statusLine = new String(h, 0, eol, StandardCharsets.ISO_8859_1);
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                throw new IOException("not an HTTP answer: " + statusLine);
            }
            try {
                return Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new IOException("not an HTTP status: " + statusLine);
            }
        }

        void checkLate(long now) {
            if (closed) {
                return;
            }
            if (now - lastHeard >= lateAfterNanos) {
                fail(new IOException("no answer for " + Duration.ofNanos(now - lastHeard).toSeconds() + " s"));
            } else {
                dueAt(lastHeard + lateAfterNanos);
            }
        }

        void fail(IOException e) {
            if (closed) {
                return;
            }
            close();
            sink.failed(e);
        }

        /** Ends it without telling the sink. */
        void close() {
            closed = true;
            open.remove(this);
            if (key != null) {
                key.cancel();
            }
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }
}
