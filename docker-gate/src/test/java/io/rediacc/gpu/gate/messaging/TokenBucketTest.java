package io.rediacc.gpu.gate.messaging;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TokenBucketTest {

    @Test
    void aBurstPassesThenTheRateLimits() {
        TokenBucket bucket = new TokenBucket(3, 1, 0);

        assertThat(bucket.tryTake(0)).isTrue();
        assertThat(bucket.tryTake(0)).isTrue();
        assertThat(bucket.tryTake(0)).isTrue();
        assertThat(bucket.tryTake(0)).isFalse();
        assertThat(bucket.tryTake(500_000_000L)).as("half a token").isFalse();
        assertThat(bucket.tryTake(1_000_000_000L)).isTrue();
        assertThat(bucket.tryTake(100_000_000_000L)).isTrue();
        assertThat(bucket.tryTake(100_000_000_000L)).isTrue();
        assertThat(bucket.tryTake(100_000_000_000L)).isTrue();
        assertThat(bucket.tryTake(100_000_000_000L)).as("refill stops at the burst").isFalse();
    }
}
