package io.rediacc.gpu.standin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for dockerd behind the gate: answers the Engine API calls the docker CLI makes for
 * run, exec, logs, events and volume create the way dockerd does (hijacked attach and exec
 * start with {@code 101 UPGRADED}, multiplexed streams, long-poll wait) and records every request
 * it receives, so a test can assert that a refused request never arrived.
 *
 * <p>Containers behave like {@code cat} when stdin is attached (echo until stdin closes) and
 * like {@code echo hello} otherwise.
 */
public final class StandInDockerd implements AutoCloseable {

    /** One request as the daemon received it; {@code connection} names the connection it came on. */
    public record Received(String method, String uri, Map<String, String> headers, byte[] body, String connection) {
        public String path() {
            return new QueryStringDecoder(uri).path();
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern VERSION = Pattern.compile("^/v[0-9.]+(/.*)$");
    private static final Pattern CONTAINER = Pattern.compile("^/containers/([^/]+)/([a-z]+)$");
    private static final Pattern EXEC = Pattern.compile("^/exec/([^/]+)/([a-z]+)$");

    private final EventLoopGroup group;
    private final Channel server;
    private final Path socket;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, Container> containers = new ConcurrentHashMap<>();
    private final Map<String, Exec> execs = new ConcurrentHashMap<>();
    private final Map<String, ObjectNode> volumes = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private volatile CountDownLatch streamGate = new CountDownLatch(0);
    private volatile ObjectNode info = defaultInfo();
    /** The newest API version this daemon claims to serve ({@code GET /version} ApiVersion, the {@code Api-Version} header of /_ping). */
    private volatile String apiVersion = DEFAULT_API_VERSION;
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicReference<Runnable> onInspect = new java.util.concurrent.atomic.AtomicReference<>();

    private static final class Container {
        final String id;
        volatile String name;
        final ObjectNode config;
        volatile Channel attach;
        volatile boolean attachStdin;
        volatile boolean running;
        volatile boolean exited;
        final List<Runnable> onExit = new CopyOnWriteArrayList<>();

        Container(String id, String name, ObjectNode config) {
            this.id = id;
            this.name = name;
            this.config = config;
        }

        synchronized void exit() {
            if (exited) {
                return;
            }
            exited = true;
            running = false;
            onExit.forEach(Runnable::run);
        }

        synchronized void whenExited(Runnable r) {
            if (exited) {
                r.run();
            } else {
                onExit.add(r);
            }
        }
    }

    private record Exec(String id, String containerId, boolean attachStdin, boolean tty, boolean privileged) {
    }

    private StandInDockerd(EventLoopGroup group, Channel server, Path socket) {
        this.group = group;
        this.server = server;
        this.socket = socket;
    }

    /**
     * Runs stand-in daemons until the process is stopped: {@code StandInDockerd SOCKET...}, one
     * unix socket per repo daemon (the local fleet's simulated machine uses this; there is no
     * Docker engine there).
     */
    public static void main(String[] args) throws InterruptedException {
        List<String> sockets = new java.util.ArrayList<>();
        String cdiSpecDir = null;
        for (String arg : args) {
            if (arg.startsWith("--cdi-spec-dir=")) {
                cdiSpecDir = arg.substring("--cdi-spec-dir=".length());
            } else {
                sockets.add(arg);
            }
        }
        if (sockets.isEmpty()) {
            System.err.println("usage: StandInDockerd [--cdi-spec-dir=DIR] SOCKET [SOCKET...]");
            System.exit(2);
        }
        List<StandInDockerd> daemons = new java.util.ArrayList<>();
        for (String socket : sockets) {
            Path path = Path.of(socket);
            try {
                Files.deleteIfExists(path);
            } catch (java.io.IOException e) {
                System.err.println("cannot remove stale socket " + path + ": " + e.getMessage());
                System.exit(1);
            }
            StandInDockerd daemon = startUnix(path);
            if (cdiSpecDir != null) {
                daemon.setInfo("runc", List.of(cdiSpecDir), "/var/lib/docker"); // GET /info reports that spec dir
            }
            daemons.add(daemon);
            System.out.println("stand-in dockerd listening on unix://" + path);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> daemons.forEach(StandInDockerd::close)));
        Thread.currentThread().join();
    }

    /** Starts on a free TCP port of 127.0.0.1. */
    public static StandInDockerd startTcp() {
        EventLoopGroup group = new NioEventLoopGroup(2);
        StandInDockerd[] self = new StandInDockerd[1];
        Channel ch = bootstrap(group, NioServerSocketChannel.class, self)
                .bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        self[0] = new StandInDockerd(group, ch, null);
        return self[0];
    }

    /** Starts on a unix socket (epoll), as a repo daemon runs in production. */
    public static StandInDockerd startUnix(Path socket) {
        EventLoopGroup group = new EpollEventLoopGroup(2);
        StandInDockerd[] self = new StandInDockerd[1];
        Channel ch = bootstrap(group, EpollServerDomainSocketChannel.class, self)
                .bind(new DomainSocketAddress(socket.toString())).syncUninterruptibly().channel();
        self[0] = new StandInDockerd(group, ch, socket);
        return self[0];
    }

    private static ServerBootstrap bootstrap(EventLoopGroup group, Class<? extends ServerChannel> type,
                                             StandInDockerd[] self) {
        return new ServerBootstrap().group(group).channel(type)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024 * 1024),
                                new ApiHandler(self));
                    }
                });
    }

    /**
     * The fields of {@code GET /info} that matter to the gate, as a daemon with a daemon.json of
     * {@code "default-runtime": "runc", "cdi-spec-dirs": ["/etc/cdi"]} reports them (Docker 28.2).
     */
    private static ObjectNode defaultInfo() {
        ObjectNode info = JSON.createObjectNode()
                .put("ID", "stand-in").put("Name", "stand-in").put("ServerVersion", "28.2.2")
                .put("OperatingSystem", "stand-in").put("OSType", "linux").put("Architecture", "x86_64")
                .put("DockerRootDir", "/var/lib/docker").put("DefaultRuntime", "runc");
        ObjectNode runtimes = info.putObject("Runtimes");
        runtimes.putObject("io.containerd.runc.v2").put("path", "runc");
        runtimes.putObject("runc").put("path", "runc");
        info.putArray("CDISpecDirs").add("/etc/cdi");
        return info;
    }

    /**
     * Makes {@code GET /info} report this configuration from now on: the default runtime (a
     * runtime of that name is added to {@code Runtimes} unless it is runc), the CDI spec
     * directories (null: not reported at all, as before API 1.44) and the data root.
     */
    public void setInfo(String defaultRuntime, List<String> cdiSpecDirs, String dockerRootDir) {
        ObjectNode next = defaultInfo();
        next.put("DefaultRuntime", defaultRuntime).put("DockerRootDir", dockerRootDir);
        if (!"runc".equals(defaultRuntime)) {
            ((ObjectNode) next.get("Runtimes")).putObject(defaultRuntime).put("path", defaultRuntime + "-container-runtime");
        }
        if (cdiSpecDirs == null) {
            next.remove("CDISpecDirs");
        } else {
            next.putArray("CDISpecDirs").addAll(cdiSpecDirs.stream().map(JSON.getNodeFactory()::textNode).toList());
        }
        info = next;
    }

    /** Back to the default {@code GET /info} (runc, /etc/cdi, /var/lib/docker). */
    public void resetInfo() {
        info = defaultInfo();
    }

    /** The API version a Docker 28.2 daemon serves, which the stand-in claims unless told otherwise. */
    public static final String DEFAULT_API_VERSION = "1.50";

    /**
     * Makes {@code GET /version} ({@code ApiVersion}) and {@code /_ping} ({@code Api-Version}) claim
     * {@code version} from now on, as a newer daemon would.
     */
    public void setApiVersion(String version) {
        apiVersion = version;
    }

    /** The daemon address for a manifest: {@code tcp://127.0.0.1:port} or {@code unix:///path}. */
    public String address() {
        if (socket != null) {
            return "unix://" + socket;
        }
        return "tcp://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    public void clear() {
        received.clear();
    }

    /** True when any request whose path (version prefix removed) matches {@code regex} arrived. */
    public boolean saw(String method, String pathRegex) {
        return received.stream().anyMatch(r -> r.method().equals(method) && unversioned(r.path()).matches(pathRegex));
    }

    public List<Received> requests(String method, String pathRegex) {
        return received.stream().filter(r -> r.method().equals(method) && unversioned(r.path()).matches(pathRegex))
                .toList();
    }

    /**
     * Holds the second half of log and event streams until {@link #releaseStreams()}: a test sees
     * the first line arrive while the stream is still open.
     */
    public void holdStreams() {
        streamGate = new CountDownLatch(1);
    }

    public void releaseStreams() {
        streamGate.countDown();
    }

    /** Stores a container as if it had been created earlier (for start re-checks). */
    /**
     * Stores a volume as if created on the daemon directly (outside the gate), with the local
     * driver's options; {@code GET /volumes/{name}} answers it as dockerd would.
     */
    public void addVolume(String name, String driver, Map<String, String> options) {
        ObjectNode v = JSON.createObjectNode().put("Name", name).put("Driver", driver)
                .put("Mountpoint", "/var/lib/docker/volumes/" + name + "/_data").put("Scope", "local");
        ObjectNode opts = v.putObject("Options");
        options.forEach(opts::put);
        volumes.put(name, v);
    }

    public String addContainer(String name, String createBody) {
        try {
            return create(name, (ObjectNode) JSON.readTree(createBody)).id;
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Renames a container as {@code docker rename} does; the old name no longer finds it. */
    public synchronized void rename(String ref, String newName) {
        Container c = find(ref);
        if (c == null || containers.containsKey(newName)) {
            throw new IllegalArgumentException("cannot rename " + ref + " to " + newName);
        }
        containers.remove(c.name, c);
        c.name = newName;
        containers.put(newName, c);
    }

    /** The full ID of the container {@code ref} (name, ID or ID prefix) names now. */
    public String containerId(String ref) {
        Container c = find(ref);
        if (c == null) {
            throw new IllegalArgumentException("no container " + ref);
        }
        return c.id;
    }

    /** Full IDs of the containers started or restarted, in order. */
    public List<String> startedIds() {
        return List.copyOf(started);
    }

    /**
     * Runs {@code hook} once, at the next container inspect, after the answer is made and before it
     * is sent: what a concurrent client does between a gate's check and the request it forwards.
     */
    public void onNextInspect(Runnable hook) {
        onInspect.set(hook);
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        if (socket != null) {
            try {
                Files.deleteIfExists(socket);
            } catch (Exception ignored) {
                // temp dir
            }
        }
    }

    static String unversioned(String path) {
        Matcher m = VERSION.matcher(path);
        return m.matches() ? m.group(1) : path;
    }

    private Container create(String name, ObjectNode body) {
        // Like dockerd's: 64 random-looking hex digits, so that a short ID (12 digits) names one container.
        String id = sha256Hex("container-" + ids.incrementAndGet() + "-" + System.identityHashCode(this));
        Container c = new Container(id, name == null ? "c" + ids.get() : name, body);
        containers.put(id, c);
        containers.put(c.name, c);
        return c;
    }

    private static String sha256Hex(String seed) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(seed.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Container find(String ref) {
        Container c = containers.get(ref);
        if (c != null) {
            return c;
        }
        return containers.values().stream().filter(x -> x.id.startsWith(ref)).findFirst().orElse(null);
    }

    // ------------------------------------------------------------------------------------ API

    private static final class ApiHandler extends ChannelInboundHandlerAdapter {
        private final StandInDockerd[] self;

        ApiHandler(StandInDockerd[] self) {
            this.self = self;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof FullHttpRequest request)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            try {
                self[0].handle(ctx, request);
            } finally {
                request.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        request.headers().forEach(h -> headers.put(h.getKey().toLowerCase(java.util.Locale.ROOT), h.getValue()));
        byte[] body = ByteBufUtil.getBytes(request.content());
        received.add(new Received(request.method().name(), request.uri(), headers, body, ctx.channel().id().asLongText()));
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        String path = unversioned(query.path());
        String method = request.method().name();
        try {
            route(ctx, request, method, path, query, body);
        } catch (Exception e) {
            json(ctx, request, 500, JSON.createObjectNode().put("message", "stand-in failed: " + e));
        }
    }

    private void route(ChannelHandlerContext ctx, FullHttpRequest request, String method, String path,
                       QueryStringDecoder query, byte[] body) throws Exception {
        if (path.equals("/_ping")) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    method.equals("HEAD") ? Unpooled.EMPTY_BUFFER : Unpooled.copiedBuffer("OK", StandardCharsets.US_ASCII));
            r.headers().set("Api-Version", apiVersion).set("Ostype", "linux").set("Docker-Experimental", "false")
                    .set("Builder-Version", "1").set("Swarm", "inactive")
                    .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                    .set(HttpHeaderNames.CONTENT_LENGTH, 2)
                    .set(HttpHeaderNames.CACHE_CONTROL, "no-cache, no-store, must-revalidate");
            send(ctx, request, r);
            return;
        }
        if (method.equals("POST") && path.equals("/containers/create")) {
            ObjectNode config = body.length == 0 ? JSON.createObjectNode() : (ObjectNode) JSON.readTree(body);
            String name = query.parameters().getOrDefault("name", List.of()).stream().findFirst().orElse(null);
            Container c = create(name, config);
            json(ctx, request, 201, JSON.createObjectNode().put("Id", c.id).set("Warnings", JSON.createArrayNode()));
            return;
        }
        if (method.equals("POST") && path.equals("/volumes/create")) {
            JsonNode v = body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
            String name = v.path("Name").asText("vol1");
            ObjectNode out = JSON.createObjectNode().put("Name", name).put("Driver", v.path("Driver").asText("local"))
                    .put("Mountpoint", "/var/lib/docker/volumes/" + name + "/_data").put("Scope", "local");
            out.set("Options", v.path("DriverOpts").isObject() ? v.get("DriverOpts") : JSON.nullNode());
            volumes.putIfAbsent(name, out);
            json(ctx, request, 201, volumes.get(name));
            return;
        }
        if (method.equals("GET") && path.startsWith("/volumes/") && path.indexOf('/', "/volumes/".length()) < 0) {
            String name = java.net.URLDecoder.decode(path.substring("/volumes/".length()), StandardCharsets.UTF_8);
            ObjectNode v = volumes.get(name);
            if (v == null) {
                json(ctx, request, 404, JSON.createObjectNode().put("message", "get " + name + ": no such volume"));
            } else {
                json(ctx, request, 200, v);
            }
            return;
        }
        if (method.equals("GET") && path.equals("/info")) {
            json(ctx, request, 200, info.deepCopy());
            return;
        }
        if (path.equals("/version")) {
            ObjectNode version = JSON.createObjectNode().put("Version", "28.2.2").put("ApiVersion", apiVersion)
                    .put("MinAPIVersion", "1.24").put("Os", "linux").put("Arch", "amd64")
                    .put("GitCommit", "stand-in").put("GoVersion", "go1.24").put("KernelVersion", "6.1");
            version.putArray("Components").addObject().put("Name", "Engine").put("Version", "28.2.2")
                    .putObject("Details").put("ApiVersion", apiVersion).put("MinAPIVersion", "1.24");
            byte[] bytes = JSON.writeValueAsBytes(version);
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(bytes));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                    .set("Api-Version", apiVersion).setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
            send(ctx, request, r);
            return;
        }
        if (method.equals("POST") && path.equals("/images/load")) {
            json(ctx, request, 200, JSON.createObjectNode().put("stream", "Loaded " + body.length + " bytes\n"));
            return;
        }
        if (path.equals("/events")) {
            stream(ctx, request, "application/json", List.of(
                    event("start", "first").getBytes(StandardCharsets.UTF_8),
                    event("die", "second").getBytes(StandardCharsets.UTF_8)), false);
            return;
        }
        Matcher exec = EXEC.matcher(path);
        if (exec.matches()) {
            Exec e = execs.get(exec.group(1));
            if (e == null) {
                json(ctx, request, 404, JSON.createObjectNode().put("message", "No such exec instance: " + exec.group(1)));
                return;
            }
            switch (exec.group(2)) {
                case "start" -> {
                    JsonNode b = body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
                    if (b.path("Detach").asBoolean(false)) {
                        send(ctx, request, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
                        return;
                    }
                    hijack(ctx, request, channel -> runProcess(channel, e.attachStdin(), e.tty(), "exec output\n", null));
                }
                case "json" -> json(ctx, request, 200, JSON.createObjectNode().put("ID", e.id()).put("Running", false)
                        .put("ExitCode", 0).put("ContainerID", e.containerId()).put("Pid", 42)
                        .put("OpenStdin", e.attachStdin()).put("CanRemove", false));
                case "resize" -> send(ctx, request, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
                default -> json(ctx, request, 404, JSON.createObjectNode().put("message", "page not found"));
            }
            return;
        }
        Matcher m = CONTAINER.matcher(path);
        if (!m.matches()) {
            json(ctx, request, 404, JSON.createObjectNode().put("message", "page not found"));
            return;
        }
        Container c = find(m.group(1));
        if (c == null) {
            json(ctx, request, 404, JSON.createObjectNode().put("message", "No such container: " + m.group(1)));
            return;
        }
        switch (method + " " + m.group(2)) {
            case "GET json" -> {
                ObjectNode answer = inspect(c);
                Runnable hook = onInspect.getAndSet(null);
                if (hook != null) {
                    hook.run();
                }
                json(ctx, request, 200, answer);
            }
            case "POST rename" -> {
                String to = first(query, "name");
                try {
                    rename(c.id, to);
                    send(ctx, request, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT));
                } catch (IllegalArgumentException e) {
                    json(ctx, request, 409, JSON.createObjectNode().put("message", "Conflict. The name \"" + to
                            + "\" is already in use."));
                }
            }
            case "POST attach" -> {
                boolean stdin = "1".equals(first(query, "stdin")) || "true".equals(first(query, "stdin"));
                hijack(ctx, request, channel -> {
                    c.attach = channel;
                    c.attachStdin = stdin;
                    if (c.running) {
                        startProcess(c);
                    }
                });
            }
            case "POST wait" -> {
                HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                HttpUtil.setTransferEncodingChunked(head, true);
                ctx.writeAndFlush(head);
                c.whenExited(() -> ctx.channel().eventLoop().execute(() -> {
                    ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("{\"StatusCode\":0}\n", StandardCharsets.UTF_8)));
                    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
                }));
            }
            case "POST start", "POST restart" -> {
                c.running = true;
                started.add(c.id);
                send(ctx, request, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT));
                if (c.attach != null) {
                    startProcess(c);
                } else if (!c.config.path("OpenStdin").asBoolean(false)
                        && !c.config.path("AttachStdout").asBoolean(false)) {
                    c.exit();
                }
            }
            case "POST exec" -> {
                JsonNode b = JSON.readTree(body);
                String id = String.format("%064x", ids.incrementAndGet() + 0xe7ecL);
                execs.put(id, new Exec(id, c.id, b.path("AttachStdin").asBoolean(false), b.path("Tty").asBoolean(false),
                        b.path("Privileged").asBoolean(false)));
                json(ctx, request, 201, JSON.createObjectNode().put("Id", id));
            }
            case "GET logs" -> {
                boolean tty = c.config.path("Tty").asBoolean(false);
                stream(ctx, request, tty ? "application/vnd.docker.raw-stream" : "application/vnd.docker.multiplexed-stream",
                        List.of(frame(tty, "log line 1\n"), frame(tty, "log line 2\n")), true);
            }
            case "POST resize", "POST stop", "POST kill" ->
                    send(ctx, request, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT));
            case "POST update" -> json(ctx, request, 200, JSON.createObjectNode().set("Warnings", JSON.createArrayNode()));
            default -> json(ctx, request, 404, JSON.createObjectNode().put("message", "page not found"));
        }
    }

    private void startProcess(Container c) {
        Channel attach = c.attach;
        boolean tty = c.config.path("Tty").asBoolean(false);
        runProcess(attach, c.attachStdin && c.config.path("OpenStdin").asBoolean(false), tty,
                "hello from " + c.name + "\n", c);
    }

    /** Echoes stdin back until it closes, or writes {@code output}; then ends the stream. */
    private void runProcess(Channel channel, boolean stdin, boolean tty, String output, Container container) {
        channel.eventLoop().execute(() -> {
            if (stdin) {
                channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf in = (ByteBuf) msg;
                        String text = in.toString(StandardCharsets.UTF_8);
                        in.release();
                        int eot = tty ? text.indexOf('\u0004') : -1;
                        // On a terminal, Ctrl-D ends the "shell" as it would end a real one.
                        String echoed = eot >= 0 ? text.substring(0, eot) : text;
                        if (!echoed.isEmpty()) {
                            ctx.writeAndFlush(Unpooled.wrappedBuffer(frame(tty, echoed)));
                        }
                        if (eot >= 0) {
                            finish(ctx.channel(), container);
                        }
                    }

                    @Override
                    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                        if (evt instanceof ChannelInputShutdownEvent) {
                            // Output after stdin closed: it must still reach the client (half-close).
                            ctx.writeAndFlush(Unpooled.wrappedBuffer(frame(tty, "stdin closed\n")));
                            finish(ctx.channel(), container);
                        }
                    }
                });
                channel.config().setAutoRead(true);
                channel.read();
                if (((DuplexChannel) channel).isInputShutdown()) {
                    finish(channel, container); // stdin closed before the process started
                }
            } else {
                channel.writeAndFlush(Unpooled.wrappedBuffer(frame(tty, output)));
                finish(channel, container);
            }
        });
    }

    private static void finish(Channel channel, Container container) {
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
            ((DuplexChannel) channel).shutdownOutput().addListener(x -> channel.close());
            if (container != null) {
                container.exit();
            }
        });
    }

    /** Answers 101 UPGRADED like dockerd, removes the HTTP codec and hands over the raw connection. */
    private void hijack(ChannelHandlerContext ctx, FullHttpRequest request, java.util.function.Consumer<Channel> then) {
        boolean upgrade = request.headers().contains(HttpHeaderNames.UPGRADE);
        String head = upgrade
                ? "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n";
        Channel channel = ctx.channel();
        channel.config().setAutoRead(false);
        channel.pipeline().remove(HttpObjectAggregator.class);
        channel.pipeline().remove(HttpServerCodec.class);
        channel.pipeline().remove(ApiHandler.class);
        channel.writeAndFlush(Unpooled.copiedBuffer(head, StandardCharsets.US_ASCII));
        then.accept(channel);
    }

    private void stream(ChannelHandlerContext ctx, FullHttpRequest request, String type, List<byte[]> parts,
                        boolean holdSecond) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        HttpUtil.setTransferEncodingChunked(head, true);
        ctx.write(head);
        ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(parts.get(0))));
        CountDownLatch gate = streamGate;
        Thread waiter = new Thread(() -> {
            try {
                gate.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ctx.channel().eventLoop().execute(() -> {
                for (int i = 1; i < parts.size(); i++) {
                    ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(parts.get(i))));
                }
                ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            });
        }, "stand-in-stream");
        waiter.setDaemon(true);
        waiter.start();
    }

    private static String event(String action, String name) {
        long now = System.currentTimeMillis() / 1000;
        return "{\"status\":\"" + action + "\",\"id\":\"abc\",\"from\":\"busybox\",\"Type\":\"container\",\"Action\":\""
                + action + "\",\"Actor\":{\"ID\":\"abc\",\"Attributes\":{\"image\":\"busybox\",\"name\":\"" + name
                + "\"}},\"scope\":\"local\",\"time\":" + now + ",\"timeNano\":" + now * 1_000_000_000L + "}\n";
    }

    /** Docker's stream multiplexing: an 8-byte header (stream 1 = stdout, big-endian size) per frame. */
    static byte[] frame(boolean tty, String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        if (tty) {
            return payload;
        }
        byte[] out = new byte[8 + payload.length];
        out[0] = 1;
        out[4] = (byte) (payload.length >>> 24);
        out[5] = (byte) (payload.length >>> 16);
        out[6] = (byte) (payload.length >>> 8);
        out[7] = (byte) payload.length;
        System.arraycopy(payload, 0, out, 8, payload.length);
        return out;
    }

    private ObjectNode inspect(Container c) {
        ObjectNode out = JSON.createObjectNode();
        out.put("Id", c.id).put("Name", "/" + c.name).put("Image", "sha256:0000").put("Created", "2026-01-01T00:00:00Z");
        out.set("State", JSON.createObjectNode().put("Status", c.running ? "running" : (c.exited ? "exited" : "created"))
                .put("Running", c.running).put("ExitCode", 0).put("Pid", c.running ? 42 : 0));
        ObjectNode config = c.config.deepCopy();
        ObjectNode hostConfig = config.has("HostConfig") && config.get("HostConfig").isObject()
                ? (ObjectNode) config.remove("HostConfig") : JSON.createObjectNode();
        config.remove("NetworkingConfig");
        out.set("Config", config);
        out.set("HostConfig", hostConfig);
        return out;
    }

    private static String first(QueryStringDecoder q, String name) {
        List<String> v = q.parameters().get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private static void json(ChannelHandlerContext ctx, FullHttpRequest request, int status, JsonNode body) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                Unpooled.wrappedBuffer(bytes));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .set("Api-Version", DEFAULT_API_VERSION)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        send(ctx, request, r);
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
        if (!response.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        }
        if (HttpMethod.HEAD.equals(request.method())) {
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes() == 0 ? 2
                    : response.content().readableBytes());
        }
        ctx.writeAndFlush(response);
    }
}
