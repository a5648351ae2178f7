package io.rediacc.gpu.gate.proxy;

import io.netty.channel.EventLoop;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.support.Await;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pool of daemon connections the gate's own lookups use: one keep-alive connection serves
 * lookup after lookup, and a connection that is broken, told to close, timed out or sent anything
 * unasked is never used again. The daemon here is a plain socket server that answers as scripted
 * and counts the connections it accepts.
 */
class DaemonLookupsTest {

    /** What the daemon does with request {@code n} (0-based) of connection {@code c}. */
    @FunctionalInterface
    interface Script {
        /** Writes the answer (or not); false closes the connection. */
        boolean answer(int connection, int n, String path, OutputStream out) throws IOException, InterruptedException;
    }

    /** A daemon on 127.0.0.1 that reads GET requests and answers them as its script says. */
    static final class ScriptedDaemon implements AutoCloseable {
        final ServerSocket server;
        final AtomicInteger accepted = new AtomicInteger();
        final AtomicInteger closedByPeer = new AtomicInteger();
        final List<String> paths = new CopyOnWriteArrayList<>();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final Thread acceptor;

        ScriptedDaemon(Script script) throws IOException {
            server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
            acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        sockets.add(socket);
                        int c = accepted.getAndIncrement();
                        Thread t = new Thread(() -> serve(socket, c, script), "scripted-daemon-" + c);
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "scripted-daemon");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void serve(Socket socket, int c, Script script) {
            try (socket) {
                InputStream in = new BufferedInputStream(socket.getInputStream());
                OutputStream out = socket.getOutputStream();
                for (int n = 0; ; n++) {
                    String head = readHead(in);
                    if (head == null) {
                        closedByPeer.incrementAndGet();
                        return;
                    }
                    String path = head.split(" ")[1];
                    paths.add(path);
                    if (!script.answer(c, n, path, out)) {
                        return;
                    }
                    out.flush();
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the gate went away
            }
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                head.write(b);
                byte[] h = head.toByteArray();
                int l = h.length;
                if (l >= 4 && h[l - 4] == '\r' && h[l - 3] == '\n' && h[l - 2] == '\r' && h[l - 1] == '\n') {
                    return head.toString(StandardCharsets.ISO_8859_1);
                }
            }
            return null;
        }

        SocketEndpoint endpoint() {
            return SocketEndpoint.tcp("127.0.0.1", server.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    static void json(OutputStream out, int status, String body, String extraHeaders) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n"
                + extraHeaders + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
    }

    /** The answer body a well-behaved script gives for {@code path}: the path itself, so a mix-up shows. */
    static String echo(String path) {
        return "{\"Name\":\"" + path + "\"}";
    }

    static final Script KEEP_ALIVE = (c, n, path, out) -> {
        json(out, 200, echo(path), "");
        return true;
    };

    private Vertx vertx;
    private NettyTransport transport;
    private DaemonLookups lookups;
    private ScriptedDaemon daemon;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        transport = NettyTransport.of(vertx);
        lookups = new DaemonLookups(transport, Duration.ofSeconds(2), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() throws IOException {
        lookups.close();
        if (daemon != null) {
            daemon.close();
        }
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    private EventLoop loop() {
        return transport.group().next();
    }

    private static String body(Future<DaemonLookups.Answer> answer) throws Exception {
        return new String(answer.get(10, TimeUnit.SECONDS).body(), StandardCharsets.UTF_8);
    }

    private String lookup(EventLoop loop, String path) throws Exception {
        return body(lookups.get(daemon.endpoint(), loop, path));
    }

    @Test
    void lookupAfterLookupUsesOneKeepAliveConnection() throws Exception {
        daemon = new ScriptedDaemon(KEEP_ALIVE);
        EventLoop loop = loop();

        for (int i = 0; i < 5; i++) {
            assertThat(lookup(loop, "/volumes/v" + i)).isEqualTo(echo("/volumes/v" + i));
        }

        assertThat(daemon.accepted.get()).isEqualTo(1);
        assertThat(lookups.openConnections()).isEqualTo(1);
    }

    @Test
    void aNotFoundAnswerKeepsTheConnection() throws Exception {
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            json(out, 404, "{\"message\":\"get " + path + ": no such volume\"}", "");
            return true;
        });
        EventLoop loop = loop();

        DaemonLookups.Answer first = lookups.get(daemon.endpoint(), loop, "/volumes/a").get(10, TimeUnit.SECONDS);
        DaemonLookups.Answer second = lookups.get(daemon.endpoint(), loop, "/volumes/b").get(10, TimeUnit.SECONDS);

        assertThat(first.status()).isEqualTo(404);
        assertThat(new String(second.body(), StandardCharsets.UTF_8)).contains("/volumes/b");
        assertThat(daemon.accepted.get()).isEqualTo(1);
    }

    @Test
    void anAnswerThatSaysCloseIsNotReusedEvenIfTheDaemonKeepsTheConnectionOpen() throws Exception {
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            json(out, 200, echo(path), "Connection: close\r\n");
            return true; // and keeps reading: only the gate's pool can tell not to send again
        });
        EventLoop loop = loop();

        for (int i = 0; i < 3; i++) {
            assertThat(lookup(loop, "/volumes/v" + i)).isEqualTo(echo("/volumes/v" + i));
        }

        assertThat(daemon.accepted.get()).isEqualTo(3);
        assertThat(daemon.paths).hasSize(3);
    }

    @Test
    void anHttp10AnswerIsNotReused() throws Exception {
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            byte[] body = echo(path).getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.0 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            return true;
        });
        EventLoop loop = loop();

        lookup(loop, "/volumes/a");
        lookup(loop, "/volumes/b");

        assertThat(daemon.accepted.get()).isEqualTo(2);
    }

    @Test
    void anIdleConnectionTheDaemonDropsIsRetriedOnceOnANewOne() throws Exception {
        // The daemon closes each connection, without answering, when its second request arrives:
        // the race of a daemon dropping an idle connection just as the gate reuses it.
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            if (n == 1) {
                return false;
            }
            json(out, 200, echo(path), "");
            return true;
        });
        EventLoop loop = loop();

        assertThat(lookup(loop, "/volumes/a")).isEqualTo(echo("/volumes/a"));
        assertThat(lookup(loop, "/volumes/b")).isEqualTo(echo("/volumes/b"));

        assertThat(daemon.accepted.get()).isEqualTo(2);
        assertThat(daemon.paths).containsExactly("/volumes/a", "/volumes/b", "/volumes/b");
    }

    @Test
    void aNewConnectionThatBreaksFailsTheLookupWithoutRetrying() throws Exception {
        daemon = new ScriptedDaemon((c, n, path, out) -> false);

        assertThatThrownBy(() -> lookup(loop(), "/volumes/a")).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("closed the connection");

        assertThat(daemon.accepted.get()).isEqualTo(1);
    }

    @Test
    void anIdleConnectionThatReceivesAnythingUnaskedIsNeverUsedAgain() throws Exception {
        // The first answer is followed by a second, unasked one: were the connection used again, the
        // next lookup would read that one as its own answer.
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            json(out, 200, echo(path), "");
            if (c == 0 && n == 0) {
                json(out, 200, "{\"Name\":\"unasked\",\"Options\":{\"device\":\"/run\"}}", "");
            }
            return true;
        });
        EventLoop loop = loop();

        assertThat(lookup(loop, "/volumes/a")).isEqualTo(echo("/volumes/a"));
        Await.until("the connection that was sent an unasked answer closed", Duration.ofSeconds(10),
                () -> lookups.openConnections() == 0);
        assertThat(lookup(loop, "/volumes/b")).isEqualTo(echo("/volumes/b"));

        assertThat(daemon.accepted.get()).isEqualTo(2);
    }

    @Test
    void aTimedOutLookupFailsAndItsLateAnswerReachesNoOtherLookup() throws Exception {
        lookups.close();
        lookups = new DaemonLookups(transport, Duration.ofSeconds(2), Duration.ofMillis(300));
        CountDownLatch answerLate = new CountDownLatch(1);
        CountDownLatch answeredLate = new CountDownLatch(1);
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            if (c == 0 && n == 0) {
                // answers only once the lookup timed out and another one was answered
                answerLate.await(30, TimeUnit.SECONDS);
                try {
                    json(out, 200, "{\"Name\":\"late\"}", "");
                    out.flush();
                } finally {
                    answeredLate.countDown();
                }
                return true;
            }
            json(out, 200, echo(path), "");
            return true;
        });
        EventLoop loop = loop();

        assertThatThrownBy(() -> lookup(loop, "/volumes/slow")).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("did not answer within 300 ms");
        assertThat(lookup(loop, "/volumes/b")).isEqualTo(echo("/volumes/b"));
        answerLate.countDown();
        assertThat(answeredLate.await(30, TimeUnit.SECONDS)).as("the late answer was sent").isTrue();
        assertThat(lookup(loop, "/volumes/c")).isEqualTo(echo("/volumes/c"));

        assertThat(daemon.accepted.get()).isEqualTo(2);
    }

    @Test
    void anAnswerThatIsNotHttpFailsTheLookupAndRetiresTheConnection() throws Exception {
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            if (c == 0) {
                out.write("SSH-2.0-OpenSSH_9.2\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                return true;
            }
            json(out, 200, echo(path), "");
            return true;
        });
        EventLoop loop = loop();

        assertThatThrownBy(() -> lookup(loop, "/volumes/a")).isInstanceOf(ExecutionException.class);
        assertThat(lookup(loop, "/volumes/b")).isEqualTo(echo("/volumes/b"));

        assertThat(daemon.accepted.get()).isEqualTo(2);
    }

    @Test
    void concurrentLookupsEachGetTheirOwnAnswerAndTheIdleOnesAreBounded() throws Exception {
        // No answer comes before every lookup has asked, so all are in flight at once: each needs a connection of its own.
        int count = 3 * DaemonLookups.MAX_IDLE;
        CountDownLatch allAsked = new CountDownLatch(count);
        daemon = new ScriptedDaemon((c, n, path, out) -> {
            allAsked.countDown();
            allAsked.await(30, TimeUnit.SECONDS);
            json(out, 200, echo(path), "");
            return true;
        });
        List<Future<DaemonLookups.Answer>> answers = new ArrayList<>();
        EventLoop one = loop();
        for (int i = 0; i < count; i++) {
            // from this thread, onto one loop and onto any loop
            answers.add(lookups.get(daemon.endpoint(), i % 2 == 0 ? one : loop(), "/volumes/v" + i));
        }
        for (int i = 0; i < count; i++) {
            assertThat(body(answers.get(i))).isEqualTo(echo("/volumes/v" + i));
        }
        int opened = daemon.accepted.get();
        assertThat(opened).isGreaterThan(DaemonLookups.MAX_IDLE).isLessThanOrEqualTo(count);
        // at most MAX_IDLE stay per loop (two loops here); the rest were closed after their answer
        Await.until("idle connections within the bound", Duration.ofSeconds(5), () -> lookups.openConnections() <= 2 * DaemonLookups.MAX_IDLE);

        for (int i = 0; i < 10; i++) {
            assertThat(lookup(one, "/volumes/again" + i)).isEqualTo(echo("/volumes/again" + i));
        }
        assertThat(daemon.accepted.get()).isEqualTo(opened);
    }

    @Test
    void closeClosesEveryConnectionAndTheGateStillAnswersAfter() throws Exception {
        daemon = new ScriptedDaemon(KEEP_ALIVE);
        EventLoop loop = loop();
        lookup(loop, "/volumes/a");
        lookup(loop(), "/volumes/b");

        lookups.close();

        assertThat(lookups.openConnections()).isZero();
        Await.until("the daemon sees every connection closed", Duration.ofSeconds(5), () -> daemon.closedByPeer.get() == daemon.accepted.get());
        // a lookup after close still works, on a connection of its own that is not kept
        assertThat(lookup(loop, "/volumes/c")).isEqualTo(echo("/volumes/c"));
        Await.until("no connection left", Duration.ofSeconds(5), () -> lookups.openConnections() == 0);
    }

    @Test
    void forgettingADaemonClosesItsIdleConnections() throws Exception {
        daemon = new ScriptedDaemon(KEEP_ALIVE);
        lookup(loop(), "/volumes/a");
        assertThat(lookups.openConnections()).isEqualTo(1);

        lookups.forget(daemon.endpoint());

        Await.until("no connection left", Duration.ofSeconds(5), () -> lookups.openConnections() == 0);
        Await.until("the daemon sees its connection closed", Duration.ofSeconds(5), () -> daemon.closedByPeer.get() == 1);
    }
}
