package io.rediacc.gpu.gate.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.rediacc.gpu.contracts.manifest.RepoEntry;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.contracts.manifest.SocketEndpoint;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import io.rediacc.gpu.gate.policy.VolumeAnswers;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The gate's listeners: one per repo of the manifest. The listener a connection arrives on
 * fixes the repo identity for every request of that connection.
 */
public final class GateServer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(GateServer.class);

    /** A bound listener and the connections it accepted. */
    private record Listener(RepoEntry entry, Channel server, ChannelGroup connections) {
    }

    private final DataPlane plane;
    /** The gate's own reads of stored containers and volumes, on pooled daemon connections. */
    private final DaemonLookups lookups;
    /** The daemons' volume answers, kept while the pin watcher follows their destroys. */
    private final VolumeAnswers volumeAnswers;
    private final Map<String, Listener> listeners = new HashMap<>();
    private String machine;
    /** Connections and held bytes of all repos together. */
    private final Budget total;
    /** Connections being turned away (answered, then closed): bounded too, so refusing costs nothing unbounded. */
    private final Budget turningAway;

    public GateServer(DataPlane plane, VolumeAnswers volumeAnswers) {
        this.plane = plane;
        this.volumeAnswers = volumeAnswers;
        this.lookups = new DaemonLookups(plane.transport(), plane.daemonConnectTimeout(), plane.daemonInspectTimeout());
        this.total = new Budget(plane.limits().maxTotal(), plane.limits().maxPendingBytes());
        this.turningAway = new Budget(plane.limits().maxTotal(), 0);
    }

    /** Bytes of unfinished request heads and inspected bodies held now, all repos together. */
    public long heldBytes() {
        return total.pending.get();
    }

    /** Connections open now, all repos together (turned-away ones not counted). */
    public int openConnections() {
        return total.connections.get();
    }

    /**
     * Serves exactly the repos of {@code manifest}: binds new ones, closes removed ones (and their
     * connections), rebinds changed ones. Throws when a listener cannot be bound.
     */
    public synchronized void serve(ReposManifest manifest) {
        if (machine != null && !machine.equals(manifest.machine())) {
            LOG.warnf("the manifest now names machine %s; this gate keeps serving as %s until restarted",
                    manifest.machine(), machine);
        }
        if (machine == null) {
            machine = manifest.machine();
        }
        Map<String, RepoEntry> wanted = new HashMap<>();
        manifest.repos().forEach(r -> wanted.put(r.name(), r));
        for (var it = listeners.entrySet().iterator(); it.hasNext(); ) {
            var current = it.next();
            RepoEntry next = wanted.get(current.getKey());
            if (next == null || !sameServing(current.getValue().entry(), next)) {
                stop(current.getValue());
                it.remove();
            }
        }
        RuntimeException failure = null;
        for (RepoEntry entry : manifest.repos()) {
            if (listeners.containsKey(entry.name())) {
                continue;
            }
            try {
                listeners.put(entry.name(), bind(entry));
            } catch (RuntimeException e) {
                LOG.errorf("cannot listen for repo %s on %s: %s", entry.name(), entry.listen(), e.getMessage());
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The address a repo's listener is bound to (the actual port for {@code tcp://...:0}). */
    public synchronized Optional<SocketAddress> boundAddress(String repoName) {
        return Optional.ofNullable(listeners.get(repoName)).map(l -> l.server().localAddress());
    }

    public synchronized int listenerCount() {
        return listeners.size();
    }

    private boolean sameServing(RepoEntry a, RepoEntry b) {
        return a.equals(b);
    }

    /** The identity the policy judges a repo's requests under. */
    public static RepoIdentity identity(String machine, RepoEntry entry) {
        return new RepoIdentity(entry.name(), entry.guid(), machine, entry.buildkitDeviceEntitlementDisabled());
    }

    private Listener bind(RepoEntry entry) {
        RepoIdentity identity = identity(machine, entry);
        ChannelGroup connections = new DefaultChannelGroup("repo-" + entry.name(), GlobalEventExecutor.INSTANCE);
        ConnectionLimits limits = plane.limits();
        Budget repoBudget = new Budget(limits.maxPerRepo(), limits.maxPendingBytesPerRepo());
        prepareSocketPath(entry.listen());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(plane.transport().group())
                .channelFactory(plane.transport().serverChannels(entry.listen()))
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.AUTO_READ, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        if (!total.tryOpen()) {
                            turnAway(ch, 503, "the gate serves as many connections as it can (" + limits.maxTotal()
                                    + ", gate.connections.max-total); retry shortly");
                            return;
                        }
                        if (!repoBudget.tryOpen()) {
                            total.closed();
                            turnAway(ch, 429, "repo " + entry.name() + " has " + limits.maxPerRepo()
                                    + " connections open to its gate, the most it may (gate.connections.max-per-repo);"
                                    + " close idle ones and retry");
                            return;
                        }
                        ch.closeFuture().addListener(f -> {
                            repoBudget.closed();
                            total.closed();
                        });
                        ClientConnection connection = new ClientConnection(plane, identity, entry.daemon(), lookups, volumeAnswers,
                                repoBudget, total);
                        ch.pipeline().addLast(connection.rawReads(), ClientConnection.codec(), connection);
                    }
                });
        if (entry.listen().kind() == SocketEndpoint.Kind.TCP) {
            bootstrap.option(ChannelOption.SO_REUSEADDR, true);
        }
        var bound = bootstrap.bind(plane.transport().address(entry.listen())).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            throw new IllegalStateException("cannot listen on " + entry.listen() + ": "
                    + (cause == null ? "unknown error" : cause.getMessage()), cause);
        }
        try {
            applySocketAccess(entry);
        } catch (RuntimeException e) {
            bound.channel().close().awaitUninterruptibly();
            throw e;
        }
        LOG.infof("serving repo %s (%s) on %s -> daemon %s", entry.name(), entry.guid(),
                bound.channel().localAddress(), entry.daemon());
        return new Listener(entry, bound.channel(), connections);
    }

    /**
     * A connection over a cap: its request head is read (for at most the header timeout, 2 s at
     * most) so the answer reaches the client as the answer to its request, then it is closed.
     * Beyond {@code max-total} connections being turned away at once, new ones are closed unread.
     */
    private void turnAway(Channel ch, int status, String message) {
        if (!turningAway.tryOpen()) {
            ch.close();
            return;
        }
        ch.closeFuture().addListener(f -> turningAway.closed());
        long waitMillis = Math.min(2000, plane.limits().headerTimeout().toMillis());
        ch.eventLoop().schedule(() -> {
            ch.close();
        }, waitMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        ch.pipeline().addLast(ClientConnection.codec(), new io.netty.channel.ChannelInboundHandlerAdapter() {
            private boolean answered;

            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                io.netty.util.ReferenceCountUtil.release(msg);
                if (!answered && msg instanceof io.netty.handler.codec.http.HttpRequest) {
                    answered = true;
                    LOG.debugf("turned away a connection: %s", message);
                    ctx.writeAndFlush(DockerErrors.response(status, message, true))
                            .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                }
            }

            @Override
            public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        });
    }

    /** Who may connect to a unix listener: the repo's users, through the manifest's mode and group. */
    private static void applySocketAccess(RepoEntry entry) {
        if (entry.listen().kind() != SocketEndpoint.Kind.UNIX) {
            return;
        }
        Path path = entry.listen().path();
        try {
            if (entry.listenGroup() != null) {
                var group = path.getFileSystem().getUserPrincipalLookupService()
                        .lookupPrincipalByGroupName(entry.listenGroup());
                Files.getFileAttributeView(path, java.nio.file.attribute.PosixFileAttributeView.class).setGroup(group);
            }
            if (entry.listenMode() != null) {
                Files.setPosixFilePermissions(path, permissions(entry.listenMode()));
            }
        } catch (java.nio.file.attribute.UserPrincipalNotFoundException e) {
            throw new IllegalStateException("listenGroup " + entry.listenGroup() + " of repo " + entry.name()
                    + " does not exist on this machine", e);
        } catch (IOException e) {
            throw new IllegalStateException("cannot set the access of socket " + path + " for repo " + entry.name()
                    + ": " + e.getMessage(), e);
        }
    }

    static java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions(int mode) {
        var all = java.nio.file.attribute.PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE
        var set = java.util.EnumSet.noneOf(java.nio.file.attribute.PosixFilePermission.class);
        for (int i = 0; i < 9; i++) {
            if ((mode & (1 << (8 - i))) != 0) {
                set.add(all[i]);
            }
        }
        return set;
    }

    /** A stale socket file from a previous run would make bind fail; only sockets are removed. */
    private static void prepareSocketPath(SocketEndpoint endpoint) {
        if (endpoint.kind() != SocketEndpoint.Kind.UNIX) {
            return;
        }
        Path path = endpoint.path();
        try {
            Files.createDirectories(path.getParent());
            if (Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class,
                        java.nio.file.LinkOption.NOFOLLOW_LINKS);
                if (!attrs.isOther()) {
                    throw new IllegalStateException(path + " exists and is not a socket; refusing to replace it");
                }
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare socket " + path + ": " + e.getMessage(), e);
        }
    }

    private void stop(Listener listener) {
        LOG.infof("no longer serving repo %s on %s", listener.entry().name(), listener.entry().listen());
        listener.server().close().awaitUninterruptibly();
        listener.connections().close().awaitUninterruptibly();
        lookups.forget(listener.entry().daemon());
        if (listener.entry().listen().kind() == SocketEndpoint.Kind.UNIX) {
            try {
                Files.deleteIfExists(listener.entry().listen().path());
            } catch (IOException e) {
                LOG.debugf("cannot remove socket %s: %s", listener.entry().listen().path(), e.getMessage());
            }
        }
    }

    @Override
    public synchronized void close() {
        listeners.values().forEach(this::stop);
        listeners.clear();
        lookups.close();
    }
}
