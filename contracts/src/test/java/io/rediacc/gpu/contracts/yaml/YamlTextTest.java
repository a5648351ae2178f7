package io.rediacc.gpu.contracts.yaml;

import io.rediacc.gpu.contracts.cdi.CdiSpecParser;
import io.rediacc.gpu.contracts.cdi.InvalidCdiSpecException;
import io.rediacc.gpu.contracts.manifest.InvalidManifestException;
import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One YAML library, read strictly: every module reads and writes YAML through {@link YamlText}. */
class YamlTextTest {

    private static final Pattern YAML_LIBRARY = Pattern.compile("import (static )?(org\\.yaml\\.snakeyaml|com\\.fasterxml\\.jackson\\.dataformat\\.yaml)\\.");

    @Test
    void noMainCodeOutsideContractsYamlUsesAYamlLibrary() throws IOException {
        List<String> offenders = new ArrayList<>();
        Path root = Path.of("..").toAbsolutePath().normalize();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                        if (f.toString().replace('\\', '/').contains("/io/rediacc/gpu/contracts/yaml/")) {
                            continue;
                        }
                        Files.readString(f).lines().filter(l -> YAML_LIBRARY.matcher(l).find())
                                .forEach(l -> offenders.add(root.relativize(f) + ": " + l.strip()));
                    }
                }
            }
        }
        assertThat(offenders).as("read and write YAML through contracts' YamlText").isEmpty();
    }

    @Test
    void anAliasIsRefusedNotReadAsTheTextOfItsName() {
        assertThatThrownBy(() -> YamlText.read("a: &p /dev/nvidia0\nb: *p\n"))
                .hasMessageContaining("alias *p").hasMessageContaining("not supported");
        assertThatThrownBy(() -> YamlText.readTree("a: &l [1]\nb:\n  c: *l\n".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("alias *l");
    }

    @Test
    void aManifestThatUsesAnAliasIsRefused() {
        // Jackson alone read "daemon: *d" as the daemon address "d"
        assertThatThrownBy(() -> ManifestLoader.parse("""
                machine: gpu-host-1
                repos:
                  - name: trainer
                    guid: 3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43
                    listen: &d unix:///run/rediacc/gate/trainer.sock
                    daemon: *d
                """.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidManifestException.class).hasMessageContaining("not valid YAML")
                .hasMessageContaining("alias *d");
    }

    @Test
    void aCdiSpecThatUsesAnAliasIsRefused() {
        assertThatThrownBy(() -> CdiSpecParser.parse("aliases.yaml", """
                cdiVersion: 0.5.0
                kind: vendor.com/dev
                devices:
                  - name: a
                    containerEdits:
                      deviceNodes: &nodes
                        - path: /dev/a
                  - name: b
                    containerEdits:
                      deviceNodes: *nodes
                """.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidCdiSpecException.class).hasMessageContaining("alias *nodes");
    }

    @Test
    void aKeyGivenTwiceIsRefused() {
        assertThatThrownBy(() -> YamlText.read("a: 1\na: 2\n")).hasMessageContaining("Duplicate field 'a'");
    }

    @Test
    void writtenYamlReadsBackTheSameInYaml11() throws IOException {
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("name", "0");
        tree.put("pciBusId", "0000:18:00.0");
        tree.put("flag", "on");
        tree.put("nodes", List.of(Map.of("path", "/dev/nvidia0")));
        String flush = YamlText.write(tree, YamlText.Lists.FLUSH);
        String indented = YamlText.write(tree, YamlText.Lists.INDENTED);
        assertThat(flush).contains("\nnodes:\n- path: /dev/nvidia0\n");
        assertThat(indented).contains("\nnodes:\n  - path: /dev/nvidia0\n");
        assertThat(YamlText.read(flush)).isEqualTo(tree);
        assertThat(YamlText.read(indented)).isEqualTo(tree);
    }
}
