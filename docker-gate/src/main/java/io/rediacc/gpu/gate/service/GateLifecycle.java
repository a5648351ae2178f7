package io.rediacc.gpu.gate.service;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import io.rediacc.gpu.gate.config.GateConfig;
import io.rediacc.gpu.gate.proxy.NettyTransport;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import io.smallrye.common.annotation.Identifier;

import java.util.Map;

/** Starts the {@link Gate} with the application and closes it on shutdown. */
@Startup
@ApplicationScoped
public class GateLifecycle {

    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(GateLifecycle.class);

    private final GateConfig config;
    private final Vertx vertx;
    private final MeterRegistry registry;
    private final Map<String, Object> kafka;
    private volatile Gate gate;

    public GateLifecycle(GateConfig config, Vertx vertx, MeterRegistry registry,
                         @Identifier("default-kafka-broker") Map<String, Object> kafka) {
        this.config = config;
        this.vertx = vertx;
        this.registry = registry;
        this.kafka = kafka;
    }

    void onStart(@Observes StartupEvent event) {
        try {
            gate = Gate.start(config, kafka, NettyTransport.of(vertx), registry);
        } catch (GateFiles.UnsafeGateFileException e) {
            LOG.errorf("refusing to serve: %s", e.getMessage());
            throw e;
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        Gate running = gate;
        if (running != null) {
            running.close();
        }
    }

    /** The running gate (null before start or after a failed start). */
    public Gate gate() {
        return gate;
    }
}
