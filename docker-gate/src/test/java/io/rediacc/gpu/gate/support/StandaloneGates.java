package io.rediacc.gpu.gate.support;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediacc.gpu.gate.proxy.NettyTransport;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.config.GateConfig;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Starts gates outside Quarkus, wired exactly as the application wires them, so a test can stop
 * one and start another (a restart) within one JVM and one broker.
 */
public final class StandaloneGates implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(2));

    /**
     * The {@code gate.*} properties of a test gate: short intervals and timeouts (so a test takes
     * seconds), the test grant key, pins under {@link #pinRootFor}; a test may change or add some
     * and start the gate on them with {@link #start(Map)}.
     */
    public static Map<String, String> properties(Path manifest, Path stateDir, String gateId) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("gate.manifest", manifest.toString());
        p.put("gate.manifest-poll-interval", Duration.ofMillis(200).toString());
        p.put("gate.state-dir", stateDir.toString());
        p.put("gate.id", gateId);
        p.put("gate.heartbeat", Duration.ofSeconds(2).toString());
        p.put("gate.max-body-bytes", "65536");
        p.put("gate.daemon-connect-timeout", Duration.ofSeconds(2).toString());
        p.put("gate.daemon-inspect-timeout", Duration.ofSeconds(5).toString());
        p.put("gate.decisions-burst", "20");
        p.put("gate.decisions-per-second", "1");
        p.put("gate.kafka-api-timeout", Duration.ofSeconds(2).toString());
        p.put("gate.grants-key", GrantsTopic.keyFile().toString());
        p.put("gate.pin-root", pinRootFor(stateDir).toString());
        return p;
    }

    /** The test broker, as the application hands its {@code kafka.*} properties to the gate. */
    private static Map<String, Object> kafka() {
        return Map.of("bootstrap.servers", KafkaTestResource.broker().bootstrapServers());
    }

    /** One directory per test JVM for every standalone gate's pins, outside the tests' temporary directories. */
    private static final Path PIN_BASE = Path.of(System.getProperty("java.io.tmpdir"), "gate-test-pins-" + ProcessHandle.current().pid());

    private static final java.util.Set<Path> EXTRA_PIN_ROOTS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        // A test that never closes its gates must not leave mounts behind the JVM.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            removePins(PIN_BASE);
            EXTRA_PIN_ROOTS.forEach(StandaloneGates::removePins);
        }, "remove-test-pins"));
    }

    /** Removes the pins under {@code pinRoot} at JVM exit too (the Quarkus test gate's, which may outlive its resource's stop). */
    public static void removePinsAtExit(Path pinRoot) {
        EXTRA_PIN_ROOTS.add(pinRoot);
    }

    /**
     * Where a test gate with state in {@code stateDir} pins bind sources: the same for the same state
     * (a restarted gate restores its pins), outside the test's hostPaths and outside its temporary
     * directory (the pin root is a mount of its own, which JUnit could not delete).
     */
    public static Path pinRootFor(Path stateDir) {
        return PIN_BASE.resolve(Integer.toHexString(stateDir.toAbsolutePath().normalize().toString().hashCode()));
    }

    /** Unmounts and removes every pin under {@code pinRoot}: pins outlive a gate by design, a test's must not outlive the test. */
    public static void removePins(Path pinRoot) {
        io.rediacc.gpu.gate.pinning.BindPinner.unmountAll(pinRoot);
        if (io.rediacc.gpu.gate.pinning.BindPinner.mountsUnder(pinRoot).isEmpty() && java.nio.file.Files.isDirectory(pinRoot)) {
            try (var all = java.nio.file.Files.walk(pinRoot)) {
                for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.deleteIfExists(p);
                }
            } catch (java.io.IOException | RuntimeException ignored) {
                // a pin still in use: the JVM's exit hook tries again
            }
        }
    }

    public Gate start(Path manifest, Path stateDir, String gateId) {
        return start(properties(manifest, stateDir, gateId));
    }

    /** Starts a gate on the {@code gate.*} {@code properties} through {@link Gate#start}, the application's own start-up path. */
    public Gate start(Map<String, String> properties) {
        return start(properties, new SimpleMeterRegistry());
    }

    /** As {@link #start(Map)}, the gate's meters in {@code registry}. */
    public Gate start(Map<String, String> properties, io.micrometer.core.instrument.MeterRegistry registry) {
        GateConfig config = GateConfigs.of(properties);
        pinRoots.add(Gate.pinRoot(config));
        return Gate.start(config, kafka(), NettyTransport.of(vertx), registry);
    }

    private final java.util.Set<Path> pinRoots = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A gate that verifies its daemons against {@code cdiSpecDirs} (a test machine's root) instead of
     * /etc/cdi, with the default intervals.
     */
    public Gate start(Path manifest, Path stateDir, String gateId, Path... cdiSpecDirs) {
        return start(manifest, stateDir, gateId, new SimpleMeterRegistry(), cdiSpecDirs);
    }

    /** As {@link #start(Path, Path, String, Path...)}, the gate's meters in {@code registry}. */
    public Gate start(Path manifest, Path stateDir, String gateId, io.micrometer.core.instrument.MeterRegistry registry,
                      Path... cdiSpecDirs) {
        Map<String, String> properties = properties(manifest, stateDir, gateId);
        properties.put("gate.daemon-check.cdi-spec-dirs",
                String.join(",", java.util.Arrays.stream(cdiSpecDirs).map(Path::toString).toList()));
        return start(properties, registry);
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
        pinRoots.forEach(StandaloneGates::removePins);
    }
}
