package io.rediacc.gpu.contracts.cdi;

import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException.Part;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CdiNameTest {

    @ParameterizedTest(name = "{0} is a valid CDI name")
    @ValueSource(strings = {
            "nvidia.com/gpu=0",
            "nvidia.com/gpu=all",
            "nvidia.com/gpu=0:1",
            "nvidia.com/gpu=GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c",
            "nvidia.com/gpu=MIG-4d806f22-346a-5a1d-ac01-86b505cdf485",
            "nvidia.com/imex-channel=2047",
            "rediacc.io/dri=renderD128",
            "rediacc.io/amd=gpu0",
            "rediacc.io/amd=all",
            "vendor.com/device=myDevice",
            "example.com/device=0",
            "a/b=c",
            "A/B=C",
            "vendor_1.example-2.com/class_x.y-z=dev_1.2:3-4",
            "intel.com/gpu=card0",
            "x9/y9=9",
    })
    void acceptsNamesOfTheSpecificationsGrammar(String name) {
        CdiName parsed = CdiName.parse(name);
        assertThat(parsed.qualified()).isEqualTo(name);
        assertThat(CdiName.isValid(name)).isTrue();
    }

    @ParameterizedTest(name = "{0} is refused in part {1}")
    @CsvSource(delimiter = '|', value = {
            "1vendor.com/gpu=0        | VENDOR | vendor \"1vendor.com\" must start with a letter",
            "-nvidia.com/gpu=0        | VENDOR | must start with a letter",
            "nvidia.com-/gpu=0        | VENDOR | must end with a letter or digit",
            "nvi dia.com/gpu=0        | VENDOR | invalid character ' '",
            "nvidia.com:x/gpu=0       | VENDOR | invalid character ':'",
            "/gpu=0                   | NAME   | is a path",
            "nvidia.com/=0            | CLASS  | class is empty",
            "nvidia.com/1gpu=0        | CLASS  | class \"1gpu\" must start with a letter",
            "nvidia.com/gpu_=0        | CLASS  | must end with a letter or digit",
            "nvidia.com/gp/u=0        | CLASS  | invalid character '/'",
            "nvidia.com/gpu=          | DEVICE | device is empty",
            "nvidia.com/gpu=0:        | DEVICE | must end with a letter or digit",
            "nvidia.com/gpu=:0        | DEVICE | must start with a letter or digit",
            "nvidia.com/gpu=-0        | DEVICE | must start with a letter or digit",
            "nvidia.com/gpu=0/1       | DEVICE | invalid character '/'",
            "nvidia.com/gpu=a=b       | DEVICE | invalid character '='",
            "nvidia.com/gpu=ä         | DEVICE | must start with a letter or digit",
            "nvidia.com/gpu=0 1       | DEVICE | invalid character ' '",
            "/dev/dri/renderD128      | NAME   | is a path, not a CDI device name",
            "/dev/nvidia0             | NAME   | is a path",
            "nvidia.com/gpu           | NAME   | missing \"=\"",
            "nvidia.com=0             | NAME   | missing \"/\"",
            "gpu                      | NAME   | missing \"=\"",
            "=0                       | NAME   | missing \"/\"",
            "nvidia.com/gpu=0é1       | DEVICE | U+00E9",
    })
    void refusesNamesOutsideTheGrammarSayingWhichPartIsWrong(String name, Part part, String message) {
        assertThatThrownBy(() -> CdiName.parse(name))
                .isInstanceOf(InvalidCdiNameException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((InvalidCdiNameException) e).part()).isEqualTo(part));
        assertThat(CdiName.isValid(name)).isFalse();
    }

    @Test
    void anEmptyNameIsRefused() {
        assertThatThrownBy(() -> CdiName.parse("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> CdiName.parse(null)).hasMessageContaining("empty");
    }

    @Test
    void splitsAtTheFirstEqualsThenTheFirstSlash() {
        CdiName n = CdiName.parse("vendor.io/class=dev:1");
        assertThat(n.vendor()).isEqualTo("vendor.io");
        assertThat(n.deviceClass()).isEqualTo("class");
        assertThat(n.device()).isEqualTo("dev:1");
        assertThat(n.kind()).isEqualTo("vendor.io/class");
    }

    @Test
    void comparisonIsExactAndCaseSensitive() {
        assertThat(CdiName.parse("nvidia.com/gpu=ALL")).isNotEqualTo(CdiName.parse("nvidia.com/gpu=all"));
        assertThat(CdiName.parse("nvidia.com/gpu=all")).isEqualTo(CdiName.parse("nvidia.com/gpu=all"));
        assertThat(CdiName.parse("nvidia.com/gpu=all")).isNotEqualTo(CdiName.parse("nvidia.com/gpu=0"));
    }

    @Test
    void aVeryLongNameIsRefusedCheaply() {
        String longName = "nvidia.com/gpu=" + "a".repeat(10_000);
        assertThatThrownBy(() -> CdiName.parse(longName)).hasMessageContaining("at most " + CdiName.MAX_LENGTH);
    }
}
