package io.rediacc.gpu.contracts.cdi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CdiSpecDirectoryTest {

    // the repository's copy of the shared captures (fixtures/, provenance in its README)
    static final Path FIXTURES = Path.of(System.getProperty("fixtures.dir", "../fixtures")).toAbsolutePath();

    static String fixture(String name) throws IOException {
        Path p = FIXTURES.resolve(name);
        return Files.readString(p).replace("{{ .driverRoot }}", "").replace("{{ .hostRoot }}", "");
    }

    static CdiSpec parseFixture(String name) throws IOException {
        return CdiSpecParser.parse(name, fixture(name).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyCapturedSpecParses() throws IOException {
        assertThat(names(parseFixture("nvidia-ctk-generate-nvml-default.yaml")))
                .containsExactly("example.com/device=0", "example.com/device=all");
        assertThat(names(parseFixture("nvidia-ctk-generate-management-mode.yaml")))
                .containsExactly("example.com/device=all");
        assertThat(names(parseFixture("nvidia-ctk-generate-imex-mode.yaml")))
                .containsExactly("nvidia.com/imex-channel=0", "nvidia.com/imex-channel=1", "nvidia.com/imex-channel=2047");
        CdiSpec wsl = parseFixture("nvidia-ctk-generate-wsl-mode.yaml");
        assertThat(names(wsl)).containsExactly("nvidia.com/gpu=all");
        assertThat(wsl.devices().get(0).containerEdits().deviceNodePaths()).containsExactly("/dev/dxg");
        assertThat(names(parseFixture("cdi-schema-good-minimal.json"))).containsExactly("vendor.com/device=myDevice");
        assertThat(names(parseFixture("cdi-schema-good-spec-example.json"))).isNotEmpty();
    }

    @Test
    void theEightGpuCapturesNamesAreListedQualified(@TempDir Path dir) throws IOException {
        List<String> devices = Files.readAllLines(FIXTURES.resolve("nvidia-ctk-cdi-generate-device-names-8gpu.txt")).stream()
                .filter(l -> l.trim().startsWith("name:"))
                .map(l -> l.trim().substring("name:".length()).trim().replace("\"", ""))
                .toList();
        StringBuilder yaml = new StringBuilder("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n");
        for (String d : devices) {
            yaml.append("  - name: \"").append(d).append("\"\n    containerEdits:\n      deviceNodes:\n        - path: /dev/nvidia0\n");
        }
        Files.writeString(dir.resolve("nvidia.yaml"), yaml);
        CdiSpecDirectory.Contents contents = CdiSpecDirectory.load(dir);
        assertThat(contents.problems()).isEmpty();
        assertThat(contents.deviceNames()).hasSize(17)
                .contains("nvidia.com/gpu=0", "nvidia.com/gpu=7", "nvidia.com/gpu=all",
                        "nvidia.com/gpu=GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c",
                        "nvidia.com/gpu=GPU-b1028956-cfa2-0990-bf4a-5da9abb51763");
    }

    @Test
    void aDirectoryMixesYamlAndJsonAndReportsInvalidFiles(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("nvidia.yaml"), fixture("nvidia-ctk-generate-wsl-mode.yaml"));
        Files.writeString(dir.resolve("vendor.json"), fixture("cdi-schema-good-minimal.json"));
        Files.writeString(dir.resolve("broken.yaml"), "cdiVersion: 0.6.0\nkind: x.com/y\ndevices: []\n");
        Files.writeString(dir.resolve("README.txt"), "not a spec");
        CdiSpecDirectory.Contents c = CdiSpecDirectory.load(dir);
        assertThat(c.deviceNames()).containsExactly("nvidia.com/gpu=all", "vendor.com/device=myDevice");
        assertThat(c.problems()).singleElement().asString().contains("broken.yaml").contains("non-empty list");
        assertThat(c.devices().get("nvidia.com/gpu=all").deviceNodes()).contains("/dev/dxg");
    }

    @Test
    void aDeviceDefinedTwiceIsDroppedAndReported(@TempDir Path dir) throws IOException {
        String spec = "cdiVersion: 0.3.0\nkind: rediacc.io/dri\ndevices:\n  - name: renderD128\n    containerEdits:\n"
                + "      deviceNodes:\n        - path: /dev/dri/renderD128\n";
        Files.writeString(dir.resolve("a.yaml"), spec);
        Files.writeString(dir.resolve("b.yaml"), spec.replace("0.3.0", "0.5.0"));
        CdiSpecDirectory.Contents c = CdiSpecDirectory.load(dir);
        assertThat(c.deviceNames()).isEmpty();
        assertThat(c.problems()).singleElement().asString().contains("rediacc.io/dri=renderD128")
                .contains("more than one spec");
    }

    @Test
    void aMissingDirectoryHasNoDevices() {
        assertThat(CdiSpecDirectory.load(Path.of("/nonexistent/cdi")).devices()).isEmpty();
    }

    @Test
    void unknownFieldsMakeASpecInvalid() {
        String spec = "cdiVersion: 0.6.0\nkind: x.com/y\ndevices:\n  - name: a\n    containerEdits:\n      deviceNodes:\n"
                + "        - path: /dev/a\n          hostpath: /dev/b\n";
        assertThatThrownBy(() -> CdiSpecParser.parse("s.yaml", spec.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidCdiSpecException.class).hasMessageContaining("unknown field \"hostpath\"");
    }

    @Test
    void unsupportedVersionsAndBadNamesAreRefused() {
        String bad = "cdiVersion: 2.0.0\nkind: x.com/y\ndevices:\n  - name: a\n    containerEdits: {}\n";
        assertThatThrownBy(() -> CdiSpecParser.parse("s.yaml", bad.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("cdiVersion \"2.0.0\" is not supported");
        String badKind = bad.replace("2.0.0", "0.6.0").replace("x.com/y", "1x.com/y");
        assertThatThrownBy(() -> CdiSpecParser.parse("s.yaml", badKind.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("must start with a letter");
        String badDevice = bad.replace("2.0.0", "0.6.0").replace("name: a", "name: \"a:\"");
        assertThatThrownBy(() -> CdiSpecParser.parse("s.yaml", badDevice.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("must end with a letter or digit");
    }

    @Test
    void minimumVersionFollowsTheFeaturesUsed() {
        var plain = List.of(new CdiSpec.Device("renderD128", null,
                CdiSpec.ContainerEdits.ofDeviceNodes(List.of(CdiSpec.DeviceNode.of("/dev/dri/renderD128")))));
        assertThat(CdiSpec.minimumVersion(plain, null, false)).isEqualTo("0.3.0");
        var digit = List.of(new CdiSpec.Device("0", null, CdiSpec.ContainerEdits.EMPTY));
        assertThat(CdiSpec.minimumVersion(digit, null, false)).isEqualTo("0.5.0");
        assertThat(CdiSpec.minimumVersion(plain, null, true)).isEqualTo("0.6.0");
    }

    private static List<String> names(CdiSpec spec) {
        return spec.qualifiedNames().stream().map(CdiName::qualified).toList();
    }
}
