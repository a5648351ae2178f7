package io.rediacc.gpu.cli.output;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AgesTest {

    @Test
    void agesReadLikeKubectls() {
        assertThat(Ages.of(-3)).isEqualTo("0s");
        assertThat(Ages.of(42)).isEqualTo("42s");
        assertThat(Ages.of(60)).isEqualTo("1m");
        assertThat(Ages.of(754)).isEqualTo("12m34s");
        assertThat(Ages.of(3 * 3600 + 4 * 60 + 5)).isEqualTo("3h4m");
        assertThat(Ages.of(2 * 86400 + 5 * 3600)).isEqualTo("2d5h");
    }
}
