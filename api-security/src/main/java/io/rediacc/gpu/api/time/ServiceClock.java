package io.rediacc.gpu.api.time;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Clock;

/**
 * The services' one source of "now" for rules that depend on time (grant expiry, re-publishing,
 * liveness): injected, so a test moves time forward instead of waiting for it, as Kafka's clients
 * thread {@code Time} through and test with {@code MockTime}. A test replaces it with an
 * {@code @Alternative} bean; production gets the system clock in UTC.
 */
@Dependent
public class ServiceClock {

    @Produces
    @Singleton
    @DefaultBean
    Clock systemClock() {
        return Clock.systemUTC();
    }
}
