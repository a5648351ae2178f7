package io.rediacc.gpu.gate.proxy;

import com.sun.management.UnixOperatingSystemMXBean;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.standin.StandInDockerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What slow, idle and greedy clients of one repo can take from the gate: read timeouts, connection
 * caps and the cap on unfinished bytes, each answered as a Docker error, while other repos are
 * served as usual. Gates are started through {@link Gate#start} like the application starts them;
 * only the limits are shorter, so the test takes seconds.
 */
class ConnectionLimitsTest {

    private static final String PING = "GET /_ping HTTP/1.1\r\nHost: docker\r\n\r\n";

    private static StandaloneGates gates;
    private static StandInDockerd daemonA;
    private static StandInDockerd daemonB;

    @TempDir
    Path dir;

    /** Where repo a's daemon is, when a test puts something in front of {@code daemonA}. */
    private String daemonOfA;

    @BeforeAll
    static void start() {
        gates = new StandaloneGates();
        daemonA = StandInDockerd.startTcp();
        daemonB = StandInDockerd.startTcp();
    }

    @AfterAll
    static void stop() {
        daemonA.close();
        daemonB.close();
        gates.close();
    }

    private Gate gate(String id, int maxBodyBytes, ConnectionLimits limits) throws IOException {
        Path manifest = Files.writeString(dir.resolve("repos.yaml"), """
                machine: m-limits
                repos:
                  - name: a
                    guid: 44444444-4444-4444-8444-444444444444
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                  - name: b
                    guid: 55555555-5555-4555-8555-555555555555
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                """.formatted(daemonOfA != null ? daemonOfA : daemonA.address(), daemonB.address()));
        Map<String, String> properties = StandaloneGates.properties(manifest, dir.resolve("state"), id);
        properties.put("gate.max-body-bytes", Integer.toString(maxBodyBytes));
        properties.put("gate.connections.header-timeout", limits.headerTimeout().toString());
        properties.put("gate.connections.body-timeout", limits.bodyTimeout().toString());
        properties.put("gate.connections.idle-timeout", limits.idleTimeout().toString());
        properties.put("gate.connections.max-per-repo", Integer.toString(limits.maxPerRepo()));
        properties.put("gate.connections.max-total", Integer.toString(limits.maxTotal()));
        properties.put("gate.connections.max-pending-bytes-per-repo", Long.toString(limits.maxPendingBytesPerRepo()));
        properties.put("gate.connections.max-pending-bytes", Long.toString(limits.maxPendingBytes()));
        properties.put("gate.connections.max-upload-bytes", Long.toString(limits.maxUploadBytes()));
        return gates.start(properties);
    }

    private static InetSocketAddress address(Gate gate, String repo) {
        int port = ((InetSocketAddress) gate.boundAddress(repo).orElseThrow()).getPort();
        return new InetSocketAddress("127.0.0.1", port);
    }

    @Test
    void slowAndIdleClientsOfOneRepoDoNotSlowTheOthersAndTheLimitsCloseThem() throws Exception {
        // Per held connection: the client socket, the gate's, and for the idle ones (which made a
        // request) the gate's daemon connection and the stand-in's: 6 descriptors per idle/slow pair.
        UnixOperatingSystemMXBean os = (UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long free = os.getMaxFileDescriptorCount() - os.getOpenFileDescriptorCount() - 1000;
        int n = (int) Math.min(1000, free / 6); // 1,000 of each: far past any real client count, half the CI time of 2,000
        assumeTrue(n >= 250, "ulimit -n leaves " + free + " descriptors; raise it to run this test");
        if (n < 1000) {
            System.out.printf("ulimit -n allows %d idle and %d slow-header connections instead of 1,000 each%n", n, n);
        }
        Duration timeout = calibratedTimeout(n);
        ConnectionLimits limits = new ConnectionLimits(timeout, timeout, timeout, 2 * n, 2 * n + 100,
                8L << 20, 32L << 20);
        try (Gate gate = gate("gate-slow", 65536, limits)) {
            InetSocketAddress a = address(gate, "a");
            InetSocketAddress b = address(gate, "b");
            List<SocketChannel> idle = new ArrayList<>();
            List<SocketChannel> slow = new ArrayList<>();
            try {
                long opening = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    SocketChannel c = SocketChannel.open(a);
                    c.write(ascii(PING));
                    readUntil(c, "\r\n\r\nOK");
                    idle.add(c); // a keep-alive connection between requests
                }
                for (int i = 0; i < n; i++) {
                    SocketChannel c = SocketChannel.open(a);
                    c.write(ascii("GET /_ping HTTP/1.1\r\nHost: docker\r\n"));
                    slow.add(c); // a head that never ends
                }
                long openedAt = System.nanoTime();
                System.out.printf("opened %d idle and %d slow-header connections to repo a in %d ms (timeouts %s)%n", n, n,
                        (openedAt - opening) / 1_000_000, timeout);
                assertThat(Duration.ofNanos(openedAt - opening)).as("opening must be within the timeouts")
                        .isLessThan(timeout.minusSeconds(1));

                // a connection the client sees open may still wait in the kernel's accept queue
                Await.until("the gate holds all " + 2 * n, Duration.ofSeconds(30), () -> gate.openConnections() == 2 * n);
                // repo a is at its cap: one more connection is answered, not left hanging
                String over = RawExchange.send(a, PING, Duration.ofSeconds(5));
                assertThat(over).startsWith("HTTP/1.1 429").contains("gate.connections.max-per-repo");

                // repo b is served as usual meanwhile
                long[] latencies = new long[50];
                for (int i = 0; i < latencies.length; i++) {
                    long t = System.nanoTime();
                    String answer = RawExchange.send(b, PING.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"),
                            Duration.ofSeconds(5));
                    latencies[i] = (System.nanoTime() - t) / 1_000_000;
                    assertThat(answer).startsWith("HTTP/1.1 200").endsWith("OK");
                }
                Arrays.sort(latencies);
                System.out.printf("repo b while repo a holds %d connections: ping p50 %d ms, max %d ms%n", 2 * n,
                        latencies[latencies.length / 2], latencies[latencies.length - 1]);
                assertThat(latencies[latencies.length - 1]).as("slowest ping of repo b, ms").isLessThan(2000);

                // the slow heads keep trickling: the header timeout counts from the first byte, not the last
                for (SocketChannel c : slow) {
                    c.write(ascii("X-Slow: 1\r\n"));
                }

                Map<SocketChannel, String> answers = awaitClosed(idle, slow, timeout.plusSeconds(15));
                long allClosed = System.nanoTime();
                System.out.printf("the gate closed all %d connections %d ms after the last was opened%n", 2 * n,
                        (allClosed - openedAt) / 1_000_000);
                assertThat(answers).as("connections the gate closed").hasSize(2 * n);
                assertThat(Duration.ofNanos(allClosed - openedAt)).isGreaterThanOrEqualTo(timeout.minusMillis(500));
                for (SocketChannel c : idle) {
                    assertThat(answers.get(c)).as("an idle keep-alive connection ends without an answer").isEmpty();
                }
                for (SocketChannel c : slow) {
                    assertThat(answers.get(c)).startsWith("HTTP/1.1 408").contains("gate.connections.header-timeout")
                            .contains("\"message\"");
                }
            } finally {
                for (SocketChannel c : idle) {
                    c.close();
                }
                for (SocketChannel c : slow) {
                    c.close();
                }
            }
            Await.until("every connection of repo a released", Duration.ofSeconds(10), () -> gate.openConnections() == 0);
            assertThat(RawExchange.send(a, PING.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"), Duration.ofSeconds(5)))
                    .startsWith("HTTP/1.1 200");
        }
    }

    /**
     * The timeouts of the slow-client test: 6 s where opening all connections is quick (an idle CI
     * machine opens 4,000 in a few seconds), longer where the machine is busy, so that every
     * connection is open at once before the first one times out. Measured on 200 of each kind,
     * after 100 that warm the code paths up.
     */
    private Duration calibratedTimeout(int n) throws Exception {
        Duration slow = Duration.ofSeconds(60);
        long elapsed = 0;
        try (Gate gate = gate("gate-calibrate", 65536, new ConnectionLimits(slow, slow, slow, 1000, 1000, 8L << 20, 32L << 20))) {
            InetSocketAddress a = address(gate, "a");
            // not while the broker and the gate's Kafka clients are still starting: that is not what opening costs
            Await.until("the calibration gate caught up", Duration.ofSeconds(60), () -> gate.grants().state().caughtUp());
            List<SocketChannel> open = new ArrayList<>();
            try {
                for (int i = 0; i < 300; i++) {
                    long t = System.nanoTime();
                    SocketChannel c = SocketChannel.open(a);
                    open.add(c);
                    c.write(ascii(PING));
                    readUntil(c, "\r\n\r\nOK");
                    SocketChannel s = SocketChannel.open(a);
                    open.add(s);
                    s.write(ascii("GET /_ping HTTP/1.1\r\nHost: docker\r\n"));
                    if (i >= 100) {
                        elapsed += System.nanoTime() - t;
                    }
                }
            } finally {
                for (SocketChannel c : open) {
                    c.close();
                }
            }
        }
        Duration estimate = Duration.ofNanos(elapsed * n / 200);
        Duration timeout = estimate.multipliedBy(3).dividedBy(2).plusSeconds(3);
        return timeout.compareTo(Duration.ofSeconds(6)) < 0 ? Duration.ofSeconds(6) : timeout;
    }

    @Test
    void unfinishedBodiesAreCappedPerRepoAndInTotalAndAnswered() throws Exception {
        int body = 200 * 1024;
        ConnectionLimits limits = new ConnectionLimits(Duration.ofSeconds(10), Duration.ofSeconds(8),
                Duration.ofSeconds(10), 100, 200, 512 * 1024, 768 * 1024);
        try (Gate gate = gate("gate-bodies", 256 * 1024, limits)) {
            InetSocketAddress a = address(gate, "a");
            InetSocketAddress b = address(gate, "b");
            List<Socket> held = new ArrayList<>();
            try {
                Socket a1 = unfinishedCreate(a, body, held);
                Await.until("a1 held", Duration.ofSeconds(10), () -> gate.heldBytes() >= body);
                unfinishedCreate(a, body, held);
                Await.until("a2 held", Duration.ofSeconds(10), () -> gate.heldBytes() >= 2L * body);

                Socket a3 = unfinishedCreate(a, body, held);
                assertThat(read(a3, Duration.ofSeconds(5))).startsWith("HTTP/1.1 429")
                        .contains("gate.connections.max-pending-bytes-per-repo");

                unfinishedCreate(b, body, held);
                Await.until("b1 held", Duration.ofSeconds(10), () -> gate.heldBytes() >= 3L * body);
                Socket b2 = unfinishedCreate(b, body, held);
                assertThat(read(b2, Duration.ofSeconds(5))).startsWith("HTTP/1.1 503")
                        .contains("gate.connections.max-pending-bytes)");

                // the bodies that never end are answered when the body timeout runs out, and released
                assertThat(read(a1, Duration.ofSeconds(20))).startsWith("HTTP/1.1 408")
                        .contains("gate.connections.body-timeout");
                Await.until("every held byte released", Duration.ofSeconds(10), () -> gate.heldBytes() == 0);

                String padded = "{\"Image\":\"busybox\",\"Labels\":{\"pad\":\"" + "x".repeat(body) + "\"}}";
                String created = RawExchange.send(b, "POST /v1.50/containers/create HTTP/1.1\r\nHost: docker\r\n"
                        + "Connection: close\r\nContent-Type: application/json\r\nContent-Length: " + padded.length()
                        + "\r\n\r\n" + padded, Duration.ofSeconds(10));
                assertThat(created).startsWith("HTTP/1.1 201");
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }

    @Test
    void streamingAndHijackedConnectionsAreNotIdleButKeepAliveOnesAre() throws Exception {
        Duration idle = Duration.ofSeconds(1);
        ConnectionLimits limits = new ConnectionLimits(idle, idle, idle, 100, 200, 8L << 20, 32L << 20);
        try (Gate gate = gate("gate-idle", 65536, limits)) {
            InetSocketAddress a = address(gate, "a");

            // a keep-alive connection between requests is closed after the idle timeout
            try (Socket keepAlive = new Socket(a.getAddress(), a.getPort())) {
                long t = System.nanoTime(); // the idle time starts after the answer, so after this
                keepAlive.getOutputStream().write(PING.getBytes(StandardCharsets.US_ASCII));
                assertThat(readUntil(keepAlive.getInputStream(), "\r\n\r\nOK")).startsWith("HTTP/1.1 200");
                keepAlive.setSoTimeout(5000);
                assertThat(keepAlive.getInputStream().read()).as("closed by the gate").isEqualTo(-1);
                assertThat(Duration.ofNanos(System.nanoTime() - t)).isGreaterThanOrEqualTo(idle.minusMillis(200));
            }

            // an event stream quiet for 3 idle timeouts stays open
            daemonA.holdStreams();
            try (Socket events = new Socket(a.getAddress(), a.getPort())) {
                events.getOutputStream().write("GET /v1.50/events HTTP/1.1\r\nHost: docker\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(readUntil(events.getInputStream(), "\"start\"")).startsWith("HTTP/1.1 200");
                stillOpenFor(gate, idle.multipliedBy(3), "the quiet event stream");
                daemonA.releaseStreams();
                assertThat(readUntil(events.getInputStream(), "\"die\"")).contains("\"die\"");
            } finally {
                daemonA.releaseStreams();
            }

            // a hijacked exec session quiet for 3 idle timeouts still carries its bytes
            String container = daemonA.addContainer("hijacked", "{\"Image\":\"busybox\",\"OpenStdin\":true,\"HostConfig\":{}}");
            String execBody = "{\"AttachStdin\":true,\"AttachStdout\":true,\"Tty\":true,\"Cmd\":[\"cat\"]}";
            String exec = RawExchange.send(a, "POST /v1.50/containers/" + container + "/exec HTTP/1.1\r\nHost: docker\r\n"
                    + "Connection: close\r\nContent-Type: application/json\r\nContent-Length: " + execBody.length()
                    + "\r\n\r\n" + execBody, Duration.ofSeconds(5));
            assertThat(exec).startsWith("HTTP/1.1 201");
            String execId = exec.replaceAll("(?s).*\"Id\":\"([0-9a-f]+)\".*", "$1");
            try (Socket session = new Socket(a.getAddress(), a.getPort())) {
                String start = "{\"Detach\":false,\"Tty\":true}";
                session.getOutputStream().write(("POST /v1.50/exec/" + execId + "/start HTTP/1.1\r\nHost: docker\r\n"
                        + "Connection: Upgrade\r\nUpgrade: tcp\r\nContent-Type: application/json\r\nContent-Length: "
                        + start.length() + "\r\n\r\n" + start).getBytes(StandardCharsets.US_ASCII));
                assertThat(readUntil(session.getInputStream(), "\r\n\r\n")).startsWith("HTTP/1.1 101");
                stillOpenFor(gate, idle.multipliedBy(3), "the quiet hijacked session");
                session.getOutputStream().write("still here\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(readUntil(session.getInputStream(), "still here\n")).contains("still here");
            }
        }
    }

    @Test
    void aStreamedBodyTheDaemonHeldBackStillTimesOutWhenTheClientStalls() throws Exception {
        Duration bodyTimeout = Duration.ofSeconds(1);
        ConnectionLimits limits = new ConnectionLimits(Duration.ofSeconds(10), bodyTimeout, Duration.ofSeconds(10),
                100, 200, 8L << 20, 32L << 20);
        try (HeldBackDaemon relay = new HeldBackDaemon(daemonA.address())) {
            daemonOfA = relay.address();
            try (Gate gate = gate("gate-held-back", 65536, limits)) {
                InetSocketAddress a = address(gate, "a");
                await("the gate knows the API versions of repo a's daemon").atMost(Duration.ofSeconds(60)).until(() -> RawExchange
                        .send(a, "GET /v1.50/version HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n",
                                Duration.ofSeconds(2)).startsWith("HTTP/1.1 200"));

                // the daemon stops reading: the gate stops reading the client's streamed body
                relay.stopReading();
                try (SocketChannel client = SocketChannel.open(a)) {
                    client.write(ascii("POST /v1.50/images/load HTTP/1.1\r\nHost: docker\r\n"
                            + "Content-Type: application/x-tar\r\nContent-Length: 60000000\r\n\r\n"));
                    client.configureBlocking(false);
                    ByteBuffer zeros = ByteBuffer.allocate(256 * 1024);
                    long sent = 0;
                    long stalledSince = 0;
                    while (sent < 48_000_000) {
                        zeros.clear();
                        int n = client.write(zeros);
                        sent += n;
                        if (n > 0) {
                            stalledSince = 0;
                        } else if (stalledSince == 0) {
                            stalledSince = System.nanoTime();
                        } else if (System.nanoTime() - stalledSince > 500_000_000L) {
                            break;
                        } else {
                            Thread.sleep(10);
                        }
                    }
                    assertThat(sent).as("the client's writes stall while the daemon reads nothing").isLessThan(48_000_000);
                    // the time the daemon holds the gate back is not the client's: its body timeout passes meanwhile
                    stillOpenFor(gate, bodyTimeout.multipliedBy(2), "the streamed body the daemon holds back");

                    // the daemon catches up, the client sends no more: the body timeout counts again
                    relay.readAgain();
                    client.configureBlocking(true);
                    assertThat(read(client.socket(), Duration.ofSeconds(10))).startsWith("HTTP/1.1 408")
                            .contains("gate.connections.body-timeout");
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ helpers

    /** Fails as soon as the gate closes its last client connection within {@code quiet}. */
    private static void stillOpenFor(Gate gate, Duration quiet, String what) {
        await(what + " stays open").during(quiet).atMost(quiet.plusSeconds(5)).until(() -> gate.openConnections() >= 1);
    }

    private static Socket unfinishedCreate(InetSocketAddress gate, int sent, List<Socket> held) throws IOException {
        Socket s = new Socket(gate.getAddress(), gate.getPort());
        held.add(s);
        byte[] part = new byte[sent];
        Arrays.fill(part, (byte) ' ');
        part[0] = '{';
        s.getOutputStream().write(("POST /v1.50/containers/create HTTP/1.1\r\nHost: docker\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + (sent + 1000) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().write(part);
        s.getOutputStream().flush();
        return s;
    }

    /** Everything the gate sends until it closes the connection (or {@code wait} passes quietly). */
    private static String read(Socket s, Duration wait) throws IOException {
        s.setSoTimeout((int) wait.toMillis());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            int r;
            while ((r = s.getInputStream().read(buf)) >= 0) {
                out.write(buf, 0, r);
            }
        } catch (SocketTimeoutException | java.net.SocketException quietOrReset) {
            // what arrived counts
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    private static String readUntil(InputStream in, String marker) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (!out.toString(StandardCharsets.ISO_8859_1).contains(marker)) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before \"" + marker + "\": " + out.toString(StandardCharsets.ISO_8859_1));
            }
            out.write(b);
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    private static void readUntil(SocketChannel c, String marker) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(4096);
        StringBuilder seen = new StringBuilder();
        while (seen.indexOf(marker) < 0) {
            buf.clear();
            if (c.read(buf) < 0) {
                throw new IOException("closed before \"" + marker + "\": " + seen);
            }
            buf.flip();
            seen.append(StandardCharsets.ISO_8859_1.decode(buf));
        }
    }

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** Waits until the gate has closed every channel; returns what each received before its end. */
    private static Map<SocketChannel, String> awaitClosed(List<SocketChannel> idle, List<SocketChannel> slow,
                                                          Duration within) throws IOException {
        Map<SocketChannel, StringBuilder> received = new HashMap<>();
        Map<SocketChannel, String> closed = new HashMap<>();
        try (Selector selector = Selector.open()) {
            for (List<SocketChannel> list : List.of(idle, slow)) {
                for (SocketChannel c : list) {
                    c.configureBlocking(false);
                    c.register(selector, SelectionKey.OP_READ);
                    received.put(c, new StringBuilder());
                }
            }
            long deadline = System.nanoTime() + within.toNanos();
            ByteBuffer buf = ByteBuffer.allocate(8192);
            int total = idle.size() + slow.size();
            while (closed.size() < total && System.nanoTime() < deadline) {
                selector.select(200);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    SocketChannel c = (SocketChannel) key.channel();
                    buf.clear();
                    int r;
                    try {
                        r = c.read(buf);
                    } catch (IOException reset) {
                        r = -1;
                    }
                    if (r < 0) {
                        key.cancel();
                        closed.put(c, received.get(c).toString());
                    } else {
                        buf.flip();
                        received.get(c).append(StandardCharsets.ISO_8859_1.decode(buf));
                    }
                }
            }
        }
        return closed;
    }

    /** One request on a new connection; what came back until the gate closed it or {@code wait} passed. */
    static final class RawExchange {
        static String send(InetSocketAddress gate, String request, Duration wait) throws IOException {
            try (Socket s = new Socket(gate.getAddress(), gate.getPort())) {
                s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                return read(s, wait);
            }
        }
    }

    /**
     * A TCP relay in front of a daemon that can stop reading what the gate sends, as a daemon that
     * falls behind does (its answers still flow back).
     */
    static final class HeldBackDaemon implements AutoCloseable {
        private final java.net.ServerSocket server;
        private final InetSocketAddress daemon;
        private final Object gate = new Object();
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();
        private boolean holding;

        HeldBackDaemon(String daemonAddress) throws IOException {
            java.net.URI uri = java.net.URI.create(daemonAddress);
            daemon = new InetSocketAddress(uri.getHost(), uri.getPort());
            server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            start(this::accept);
        }

        String address() {
            return "tcp://127.0.0.1:" + server.getLocalPort();
        }

        void stopReading() {
            synchronized (gate) {
                holding = true;
            }
        }

        void readAgain() {
            synchronized (gate) {
                holding = false;
                gate.notifyAll();
            }
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket fromGate = server.accept();
                    Socket toDaemon = new Socket(daemon.getAddress(), daemon.getPort());
                    sockets.add(fromGate);
                    sockets.add(toDaemon);
                    start(() -> copy(fromGate, toDaemon, true));
                    start(() -> copy(toDaemon, fromGate, false));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void copy(Socket from, Socket to, boolean holdable) {
            byte[] buf = new byte[64 * 1024];
            try {
                while (true) {
                    if (holdable) {
                        synchronized (gate) {
                            while (holding) {
                                gate.wait();
                            }
                        }
                    }
                    int r = from.getInputStream().read(buf);
                    if (r < 0) {
                        to.shutdownOutput();
                        return;
                    }
                    to.getOutputStream().write(buf, 0, r);
                }
            } catch (IOException | InterruptedException ended) {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void start(Runnable task) {
            Thread t = new Thread(task, "held-back-daemon");
            t.setDaemon(true);
            t.start();
        }

        private static void closeQuietly(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already gone
            }
        }

        @Override
        public void close() throws IOException {
            readAgain();
            server.close();
            for (Socket s : sockets) {
                closeQuietly(s);
            }
        }
    }
}
