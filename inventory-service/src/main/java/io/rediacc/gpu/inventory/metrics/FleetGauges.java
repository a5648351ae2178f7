package io.rediacc.gpu.inventory.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.repository.MachineRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code inventory_machines_known} and {@code inventory_machines_stale}. Counted in the database
 * on a schedule, not per scrape: a scrape must not wait on the database, and with several
 * replicas sharing the consumer group no replica has seen every machine itself.
 */
@ApplicationScoped
public class FleetGauges {

    private static final Logger LOG = Logger.getLogger(FleetGauges.class);

    private final MachineRepository machines;
    private final InventoryConfig config;
    private final AtomicLong known = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();

    public FleetGauges(MeterRegistry registry, MachineRepository machines, InventoryConfig config) {
        this.machines = machines;
        this.config = config;
        Gauge.builder("inventory.machines.known", known, AtomicLong::get)
                .description("Machines with an inventory in the read model")
                .register(registry);
        Gauge.builder("inventory.machines.stale", stale, AtomicLong::get)
                .description("Machines whose latest inventory is older than the configured number of heartbeats")
                .register(registry);
    }

    @Scheduled(every = "${inventory.metrics-refresh:15s}", delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    public Uni<Void> refresh() {
        return machines.count()
                .chain(total -> machines.countGeneratedBefore(Instant.now().minus(config.staleAfter()))
                        .invoke(staleCount -> {
                            known.set(total);
                            stale.set(staleCount);
                        }))
                .onFailure().invoke(e -> LOG.warnf("cannot refresh fleet gauges: %s", e.getMessage()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
