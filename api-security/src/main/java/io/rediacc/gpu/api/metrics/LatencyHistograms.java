package io.rediacc.gpu.api.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.Arrays;

/**
 * Latency as Prometheus histograms with fixed buckets ({@code _bucket{le=...}}), so that
 * {@code histogram_quantile(0.99, sum by (le) (rate(..._bucket[5m])))} aggregates every replica;
 * client-side percentiles cannot be added up across replicas.
 */
@Singleton
public class LatencyHistograms {

    /** Bucket bounds: 5 ms to 60 s (the longest {@code ?wait=}). */
    public static final Duration[] BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(30), Duration.ofSeconds(60)};

    /** HTTP server latency ({@code http_server_requests_seconds_bucket}) with {@link #BUCKETS}. */
    @Produces
    @Singleton
    public MeterFilter httpServerHistogram() {
        double[] nanos = Arrays.stream(BUCKETS).mapToDouble(Duration::toNanos).toArray();
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() == Meter.Type.TIMER && id.getName().equals("http.server.requests")) {
                    return DistributionStatisticConfig.builder().serviceLevelObjectives(nanos).build().merge(config);
                }
                return config;
            }
        };
    }
}
