package io.rediacc.gpu.inventory.repository;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.pubsub.PgSubscriber;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * What changed in the read model, as the dashboard's live stream and {@link GpuListing} hear it:
 * PostgreSQL {@code LISTEN dashboard}, fed by the triggers of migration V3_22. Listening to the database rather than to the consumers means every
 * replica hears every change (the replicas share one consumer group, so each consumes only some
 * partitions), and a change is heard only after its transaction committed, so a page that reloads
 * on it reads the new state.
 */
@ApplicationScoped
public class FleetChanges {

    static final String CHANNEL = "dashboard";
    private static final Logger LOG = Logger.getLogger(FleetChanges.class);

    private final BroadcastProcessor<FleetChange> changes = BroadcastProcessor.create();
    private final Vertx vertx;
    private final PgConnectOptions options;
    private PgSubscriber subscriber;

    public FleetChanges(Vertx vertx,
                        @ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
                        @ConfigProperty(name = "quarkus.datasource.username") String user,
                        @ConfigProperty(name = "quarkus.datasource.password") String password) {
        this.vertx = vertx;
        this.options = PgConnectOptions.fromUri(url).setUser(user).setPassword(password);
    }

    /** Every change from now on; a subscriber that falls behind is not waited for. */
    public Multi<FleetChange> stream() {
        return changes.onOverflow().drop();
    }

    void start(@Observes StartupEvent event) {
        subscriber = PgSubscriber.subscriber(vertx, options)
                // reconnect for as long as the service runs: a database restart must not end the live view
                .reconnectPolicy(retries -> 1000L);
        subscriber.channel(CHANNEL).handler(payload -> {
            FleetChange change = FleetChange.parse(payload);
            if (change != null) {
                changes.onNext(change);
            }
        });
        connect();
    }

    private void connect() {
        subscriber.connect().onFailure(e -> {
            LOG.warnf("dashboard: cannot LISTEN %s yet (%s); retrying in 5 s", CHANNEL, e.getMessage());
            vertx.setTimer(5000, id -> connect());
        });
    }

    void stop(@Observes ShutdownEvent event) {
        if (subscriber != null) {
            subscriber.close();
        }
    }
}
