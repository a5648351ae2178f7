package io.rediacc.gpu.gate.service;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.gate.config.GateConfig;
import io.rediacc.gpu.gate.daemon.DaemonCheckSettings;
import io.rediacc.gpu.gate.daemon.DaemonChecks;
import io.rediacc.gpu.gate.daemon.DaemonFacts;
import io.rediacc.gpu.gate.grants.GrantSnapshotFile;
import io.rediacc.gpu.gate.grants.GrantStore;
import io.rediacc.gpu.gate.grants.GrantsFeed;
import io.rediacc.gpu.gate.grants.SignedSnapshots;
import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.manifest.ManifestWatcher;
import io.rediacc.gpu.contracts.manifest.RepoEntry;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.gate.messaging.DecisionPublisher;
import io.rediacc.gpu.gate.messaging.GateEventsProducer;
import io.rediacc.gpu.gate.messaging.GateStatusPublisher;
import io.rediacc.gpu.gate.messaging.RefusalLog;
import io.rediacc.gpu.gate.metrics.GateMetrics;
import io.rediacc.gpu.gate.policy.GatePolicy;
import io.rediacc.gpu.gate.policy.GrantLookup;
import io.rediacc.gpu.gate.proxy.ConnectionLimits;
import io.rediacc.gpu.gate.proxy.DataPlane;
import io.rediacc.gpu.gate.proxy.GateServer;
import io.rediacc.gpu.gate.proxy.NettyTransport;
import org.jboss.logging.Logger;

import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * One running gate: the manifest and its watcher, the grants (disk, then Kafka), the listeners,
 * and the status and decision publishers. Start order matters: grants from disk are loaded
 * before the first listener accepts a connection.
 */
public final class Gate implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Gate.class);

    /** The file name of grant-service's public key beside the manifest, when {@code gate.grants-key} names none. */
    public static final String GRANTS_KEY_FILE = "grant-service-key.pub";

    private final GateConfig config;
    private final GrantStore grants;
    private final GrantsFeed feed;
    private final GateEventsProducer producer;
    private final GateStatusPublisher status;
    private final GateServer server;
    private final GateMetrics metrics;
    private final ManifestHostAccess hostAccess;
    private final DaemonChecks daemons;
    private final io.rediacc.gpu.gate.pinning.Pins pins;
    private final io.rediacc.gpu.gate.pinning.PinWatch pinWatch;
    private volatile ReposManifest manifest;
    private ManifestWatcher watcher;

    private Gate(GateConfig config, Map<String, Object> kafka, ReposManifest manifest, NettyTransport transport,
                 MeterRegistry registry) {
        this.config = config;
        this.manifest = manifest;
        String machine = manifest.machine();
        String gateId = config.id();
        DaemonCheckSettings daemonCheck = DaemonCheckSettings.of(config.daemonCheck());
        ConnectionLimits connections = ConnectionLimits.of(config.connections());
        Path pinRoot = pinRoot(config);
        String clientId = "gate-" + machine + "-" + gateId;
        SignedSnapshots signedSnapshots = new SignedSnapshots(grantsKey(grantsKeyFile(config)), registry);
        this.grants = new GrantStore(machine, new GrantSnapshotFile(config.stateDir(), machine), signedSnapshots);
        this.metrics = new GateMetrics(registry, grants);
        KeyPairFile.Loaded key = KeyPairFile.ensure(signingKey(config));
        this.producer = new GateEventsProducer(kafka, clientId, "/docker-gate/" + machine + "/" + gateId,
                new RecordSigner(key.pair().getPrivate(), key.pair().getPublic()), config.kafkaApiTimeout());
        this.daemons = new DaemonChecks(transport, daemonCheck, config.daemonConnectTimeout(),
                config.daemonInspectTimeout(), registry, this::daemonStateChanged);
        this.status = new GateStatusPublisher(producer, grants, gateId, config.heartbeat(),
                () -> this.manifest.repoInfos(), config.status().maxGrants(), daemons::statuses,
                io.rediacc.gpu.gate.messaging.StatusEpoch.next(config.stateDir(), gateId, java.time.Clock.systemUTC()),
                config.grantsFreezeAfter(), java.time.Clock.systemUTC());
        DecisionPublisher decisions = new DecisionPublisher(producer, config.decisionsBurst(),
                config.decisionsPerSecond());
        // The policy production runs: what repos may reach on the host comes from the manifest and the gate's own paths.
        this.hostAccess = new ManifestHostAccess(config.manifest(), config.stateDir(), pinRoot, manifest);
        this.pins = new io.rediacc.gpu.gate.pinning.Pins(pinRoot, config.stateDir(), hostAccess);
        // the pin watcher's event streams also vouch for the volume answers the data plane keeps
        io.rediacc.gpu.gate.policy.VolumeAnswers volumeAnswers = new io.rediacc.gpu.gate.policy.VolumeAnswers();
        this.pinWatch = new io.rediacc.gpu.gate.pinning.PinWatch(pins, repo -> GateServer.identity(machine, repo),
                volumeAnswers);
        metrics.watch(volumeAnswers);
        DataPlane plane = new DataPlane(new GatePolicy(config.maxBodyBytes(), hostAccess, pins), verifiedGrants(grants, daemons,
                io.rediacc.gpu.gate.grants.DefinedDevices.besideManifest(config.manifest(),
                        daemonCheck.cdiSpecDirs())),
                new RefusalLog(gateId, metrics, decisions), transport, config.daemonConnectTimeout(),
                config.daemonInspectTimeout(), connections);
        this.server = new GateServer(plane, volumeAnswers);
        this.feed = new GrantsFeed(grants, kafka, clientId, config.kafkaApiTimeout(),
                signedSnapshots);
        metrics.watch(feed);
    }

    /** grant-service's public key: without it no snapshot could be trusted, so the gate does not start. */
    private static java.security.PublicKey grantsKey(java.nio.file.Path file) {
        try {
            return io.rediacc.gpu.contracts.signing.SigningKeys.parsePublic(
                    java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.US_ASCII));
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("gate.grants-key " + file + " cannot be read (" + e.getMessage() + "): put"
                    + " grant-service's public key there (the .pub beside its grants.signing.key-file); the gate applies"
                    + " only grant snapshots signed by it", e);
        }
    }

    /**
     * Reads the manifest, loads grants from disk, starts following Kafka and opens the listeners.
     *
     * @param kafka Kafka client properties: every {@code kafka.*} property without its prefix
     *              ({@code bootstrap.servers}, {@code security.protocol}, {@code sasl.*}, {@code ssl.*}, ...)
     */
    public static Gate start(GateConfig config, Map<String, Object> kafka, NettyTransport transport, MeterRegistry registry) {
        try {
            Identifiers.gateId(config.id()); // the id becomes part of a Kafka key: a machine name's rules
        } catch (InvalidIdentifierException e) {
            throw new IllegalArgumentException("gate.id: " + e.getMessage(), e);
        }
        GateFiles files = GateFiles.ofThisProcess();
        files.check(config.manifest(), config.stateDir(), null);
        byte[] digest = ManifestWatcher.digest(config.manifest());
        ReposManifest manifest = ManifestLoader.load(config.manifest());
        files.check(config.manifest(), config.stateDir(),
                new GrantSnapshotFile(config.stateDir(), manifest.machine()).path());
        Gate gate = new Gate(config, Map.copyOf(kafka), manifest, transport, registry);
        try {
            gate.grants.loadFromDisk();
            // Pins before listeners: a repo is served only once its recorded pins are back (or dropped).
            gate.restorePins(manifest);
            gate.daemons.serve(manifest);
            gate.daemons.awaitFirstChecks(config.daemonConnectTimeout().plus(config.daemonInspectTimeout()));
            gate.feed.start();
            gate.status.start();
            gate.server.serve(manifest);
            gate.pinWatch.serve(manifest);
            gate.watcher = new ManifestWatcher(config.manifest(), digest, config.manifestPollInterval(),
                    gate::reload);
        } catch (RuntimeException e) {
            gate.close();
            throw e;
        }
        LOG.infof("gate %s of machine %s serves %d repo(s)", config.id(), manifest.machine(),
                manifest.repos().size());
        return gate;
    }

    private void reload(ReposManifest next) {
        if (!next.machine().equals(manifest.machine())) {
            LOG.errorf("the manifest's machine changed from %s to %s; restart the gate to serve another machine",
                    manifest.machine(), next.machine());
            return;
        }
        try {
            pins.checkOutside(next.repos().stream().flatMap(r -> r.host().hostPaths().stream()).toList());
        } catch (IllegalArgumentException | IllegalStateException e) {
            LOG.errorf("the manifest change is not applied: %s", e.getMessage());
            return;
        }
        java.util.Set<String> served = new java.util.HashSet<>();
        manifest.repos().forEach(r -> served.add(r.guid()));
        manifest = next;
        hostAccess.update(next);
        // Pins after the update, judged by the new hostPaths (a repo added back is judged by its own entry, not by
        // the previous manifest, which lacks it); before the listeners, so a repo is served once its pins are back.
        for (RepoEntry repo : next.repos()) {
            if (served.contains(repo.guid())) {
                // a narrowed hostPaths takes back what earlier creates pinned, not only what new ones may bind
                pins.dropOutsideHostPaths(GateServer.identity(next.machine(), repo));
            } else {
                pins.restore(GateServer.identity(next.machine(), repo));
            }
        }
        daemons.serve(next);
        pinWatch.serve(next);
        try {
            server.serve(next);
        } finally {
            status.publish();
        }
    }

    /**
     * Re-creates each repo's recorded pins and removes strays, after checking the pin root lies
     * outside every hostPaths root; warns when the gate does not share the mount namespace of PID 1
     * (a systemd unit with PrivateTmp=, ProtectSystem= and the like), where its pins would be
     * invisible to the daemons.
     */
    private void restorePins(ReposManifest m) {
        pins.checkOutside(m.repos().stream().flatMap(r -> r.host().hostPaths().stream()).toList());
        io.rediacc.gpu.gate.pinning.MountNamespace.warnIfNotHost();
        for (RepoEntry repo : m.repos()) {
            pins.restore(GateServer.identity(m.machine(), repo));
        }
    }

    /** The gate's pins of bind sources (docs/SECURITY.md). */
    public io.rediacc.gpu.gate.pinning.Pins pins() {
        return pins;
    }

    /**
     * The grants as the policy sees them: a repo's device requests also wait (503) until its
     * daemon is verified ({@link DaemonChecks}).
     */
    private static GrantLookup verifiedGrants(GrantStore grants, DaemonChecks daemons,
                                              io.rediacc.gpu.gate.grants.DefinedDevices defined) {
        return new GrantLookup() {
            @Override
            public boolean loaded() {
                return grants.loaded();
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                return grants.holds(repoGuid, cdiName);
            }

            @Override
            public boolean orphaned(String cdiName) {
                return defined.orphaned(cdiName);
            }

            @Override
            public DaemonStatus daemon(String repoGuid) {
                return daemons.status(repoGuid);
            }

            @Override
            public io.rediacc.gpu.gate.policy.ApiVersions apiVersions(String repoGuid) {
                return daemons.apiVersions(repoGuid).orElse(null);
            }
        };
    }

    private void daemonStateChanged() {
        ManifestHostAccess access = hostAccess;
        ReposManifest served = manifest;
        if (access != null && served != null) {
            // Each daemon's reported data root joins the protected paths: it lies inside the repo's own mount.
            for (RepoEntry repo : served.repos()) {
                access.daemonDataRoot(repo.name(), daemons.dockerRootDir(repo.guid()).orElse(null));
            }
        }
        GateStatusPublisher publisher = status;
        if (publisher != null) {
            publisher.publish();
        }
    }

    /** Each repo daemon's verification and what it reported (its data root: {@link DaemonFacts}). */
    public DaemonChecks daemons() {
        return daemons;
    }

    /** The configuration this gate started with. */
    public GateConfig config() {
        return config;
    }

    /**
     * The machine's key pair ({@code gate.signing-key}); by default beside the gate's directory:
     * {@code /etc/rediacc/gate/repos.yaml} → {@code /etc/rediacc/gpu/machine-key.pem}.
     */
    static Path signingKey(GateConfig config) {
        return config.signingKey().orElseGet(() -> config.manifest().toAbsolutePath().getParent()
                .resolveSibling("gpu").resolve(Path.of(KeyPairFile.MACHINE_KEY).getFileName()));
    }

    /** grant-service's public key ({@code gate.grants-key}); by default {@value #GRANTS_KEY_FILE} beside the manifest. */
    static Path grantsKeyFile(GateConfig config) {
        return config.grantsKey().orElseGet(() -> config.manifest().toAbsolutePath().getParent().resolve(GRANTS_KEY_FILE));
    }

    /** Where bind sources are pinned ({@code gate.pin-root}); by default {@link io.rediacc.gpu.gate.pinning.Pins#DEFAULT_ROOT}. */
    public static Path pinRoot(GateConfig config) {
        return config.pinRoot().orElse(io.rediacc.gpu.gate.pinning.Pins.DEFAULT_ROOT);
    }

    public GrantStore grants() {
        return grants;
    }

    /** What repos may reach on the host; the daemon checks report each daemon's data root here. */
    public ManifestHostAccess hostAccess() {
        return hostAccess;
    }

    public ReposManifest manifest() {
        return manifest;
    }

    public GateStatusPublisher status() {
        return status;
    }

    public Optional<SocketAddress> boundAddress(String repoName) {
        return server.boundAddress(repoName);
    }

    /** Client connections open now, all repos together. */
    public int openConnections() {
        return server.openConnections();
    }

    /** Bytes of unfinished request heads and inspected bodies the gate holds now. */
    public long heldBytes() {
        return server.heldBytes();
    }

    public int listenerCount() {
        return server.listenerCount();
    }

    /** Changed versions of the manifest refused as invalid so far (the previous one stayed in force). */
    public long manifestVersionsRefused() {
        return watcher == null ? 0 : watcher.versionsRefused();
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        server.close();
        pinWatch.close();
        pins.close();
        daemons.close();
        status.close();
        feed.close();
        producer.close();
    }
}
