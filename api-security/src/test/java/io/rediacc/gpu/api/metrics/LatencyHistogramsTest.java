package io.rediacc.gpu.api.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Both services' HTTP latency lands in the same fixed buckets, so one PromQL query adds up every replica. */
class LatencyHistogramsTest {

    private final MeterFilter filter = new LatencyHistograms().httpServerHistogram();

    @Test
    void httpServerLatencyIsBucketedFromFiveMillisecondsToTheLongestWait() {
        DistributionStatisticConfig config = filter.configure(timer("http.server.requests"), DistributionStatisticConfig.NONE);

        assertThat(config.getServiceLevelObjectiveBoundaries()).containsExactly(
                ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500),
                ms(1_000), ms(2_500), ms(5_000), ms(10_000), ms(30_000), ms(60_000));
    }

    @Test
    void otherTimersKeepTheirOwnConfiguration() {
        DistributionStatisticConfig own = DistributionStatisticConfig.builder().serviceLevelObjectives(1.0).build();

        assertThat(filter.configure(timer("grants.enforcement.wait"), own)).isSameAs(own);
        assertThat(filter.configure(new Meter.Id("http.server.requests", Tags.empty(), null, null, Meter.Type.COUNTER), own))
                .as("only the timer, not a counter of the same name").isSameAs(own);
    }

    private static Meter.Id timer(String name) {
        return new Meter.Id(name, Tags.empty(), null, null, Meter.Type.TIMER);
    }

    private static double ms(long millis) {
        return millis * 1_000_000.0;
    }
}
