package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.Captured;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class NvidiaSmiCsvTest {

    @Test
    void readsTheAgentsQueryWithCommaSpaceSeparatorsAndWithoutUnits() {
        var parsed = NvidiaSmiCsv.parseGpus("""
                0, GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c, NVIDIA A10, 550.127.05, 23028, 00000000:06:00.0
                1, GPU-4404041a-04cf-1ccf-9e70-f139a9b1e23c, NVIDIA A10, 550.127.05, 23028, 00000000:07:00.0
                """);

        assertThat(parsed.problems()).isEmpty();
        assertThat(parsed.gpus()).containsExactly(
                new NvidiaGpu(0, "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c", "NVIDIA A10", "550.127.05", 23028L, "0000:06:00.0", null),
                new NvidiaGpu(1, "GPU-4404041a-04cf-1ccf-9e70-f139a9b1e23c", "NVIDIA A10", "550.127.05", 23028L, "0000:07:00.0", null));
    }

    @Test
    void bracketedMarkersMeanNoValueAndUnitsAreTolerated() {
        var parsed = NvidiaSmiCsv.parseGpus("0, GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6, Tesla P100-PCIE-16GB, [N/A], 16280 MiB, [Not Supported]\n");

        assertThat(parsed.gpus()).singleElement().satisfies(g -> {
            assertThat(g.driverVersion()).isNull();
            assertThat(g.memoryMiB()).isEqualTo(16280L);
            assertThat(g.pciBusId()).isNull();
        });
    }

    @Test
    void theCapturedCsvUsesTheConventionsTheParserReliesOn() {
        // a real --format=csv capture (other columns): ", " between values, [N/A] for a missing one
        String row = Captured.read("nvidia-smi-query-gpu-tesla-p100.csv").lines().skip(1).findFirst().orElseThrow();
        String[] values = row.split(", ");
        assertThat(values).hasSize(15);
        assertThat(NvidiaSmiCsv.value(values[0])).isEqualTo("Tesla P100-PCIE-16GB");
        assertThat(NvidiaSmiCsv.value(values[2])).isNull(); // fan.speed [N/A]
    }

    @Test
    void readsTheAgentsExactQueryAsCapturedOnARealH200() {
        // fixtures/real-h200-2026-12-04: the agent's own query run on a real NVIDIA H200 (driver 580.159.04)
        String capture = Captured.read("real-h200-2026-12-04/nvidia-smi-gpu-query.txt").lines()
                .filter(l -> !l.startsWith("$ ") && !l.startsWith("[exit")).reduce("", (a, b) -> a + b + "\n");
        var parsed = NvidiaSmiCsv.parseGpus(capture);

        assertThat(parsed.problems()).isEmpty();
        assertThat(parsed.gpus()).containsExactly(new NvidiaGpu(0, "GPU-af18943b-5062-94e0-4b74-c9d741b9a45d",
                "NVIDIA H200", "580.159.04", 143771L, "0000:00:06.0", null));
    }

    @Test
    void aNameContainingACommaIsKeptWhole() {
        var parsed = NvidiaSmiCsv.parseGpus("3, GPU-x, Graphics Device, Rev 2, 535.54.03, 40960, 00000000:3B:00.0\n");

        assertThat(parsed.gpus()).singleElement().satisfies(g -> {
            assertThat(g.name()).isEqualTo("Graphics Device, Rev 2");
            assertThat(g.driverVersion()).isEqualTo("535.54.03");
            assertThat(g.pciBusId()).isEqualTo("0000:3b:00.0");
        });
    }

    @Test
    void anUnreadableLineIsReportedAndTheOthersAreKept() {
        var parsed = NvidiaSmiCsv.parseGpus("garbage\n0, GPU-a, NVIDIA L4, 550.54.15, 23034, 00000000:01:00.0\n");

        assertThat(parsed.gpus()).hasSize(1);
        assertThat(parsed.problems()).singleElement().asString().contains("expected 6", "garbage");
    }

    @Test
    void migModeIsReportedOnlyForCardsThatHaveIt() {
        Map<Integer, String> modes = NvidiaSmiCsv.parseMigModes("0, Enabled\n1, Disabled\n2, [N/A]\n");

        assertThat(modes).containsExactly(Map.entry(0, "Enabled"), Map.entry(1, "Disabled"));
    }
}
