package io.rediacc.gpu.contracts.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The manifest's format is written down once and kept true: the JSON Schema, the contracts README and
 * {@link ManifestLoader} name the same keys, and the README's example is valid for both. Unknown keys
 * are refused with the key, where it is, and the known key it was probably meant to be.
 */
class ManifestFormatTest {

    private static final String GUID = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43";
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final JsonSchema SCHEMA = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
            .getSchema(SchemaLocation.of("classpath:schemas/repos-manifest.schema.json"),
                    SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build());

    private static String repo(String extra) {
        return """
                machine: m1
                repos:
                  - {name: a, guid: 7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:1"}
                  - {name: b, guid: %s, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:2"%s}
                """.formatted(GUID, extra);
    }

    private static ReposManifest parse(String yaml) {
        return ManifestLoader.parse(yaml.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theSchemaNamesExactlyTheKeysTheReaderKnows() throws IOException {
        JsonNode schema = YAML.readTree(getClass().getResourceAsStream("/schemas/repos-manifest.schema.json"));
        assertThat(fieldNames(schema.path("properties"))).containsExactlyInAnyOrderElementsOf(ManifestLoader.TOP_KEYS);
        assertThat(fieldNames(schema.path("$defs").path("repo").path("properties")))
                .containsExactlyInAnyOrderElementsOf(ManifestLoader.REPO_KEYS);
    }

    @Test
    void theReadmeDocumentsEveryKeyAndItsExampleIsValid() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        String section = readme.substring(readme.indexOf("## The repos manifest"));
        for (String key : ManifestLoader.REPO_KEYS) {
            assertThat(section).as("the README's table documents " + key).containsAnyOf("`repos[]." + key + "`", "`" + key + "`");
        }
        String example = section.substring(section.indexOf("```yaml") + 7, section.indexOf("```", section.indexOf("```yaml") + 7));

        ReposManifest manifest = parse(example);
        assertThat(manifest.repos()).extracting(RepoEntry::name).containsExactly("trainer", "trainer-fork");
        assertThat(manifest.repos().get(0).daemonSetup().service()).isEqualTo("rediacc-docker-trainer.service");
        assertThat(SCHEMA.validate(YAML.readTree(example))).isEmpty();
    }

    @Test
    void theManifestsTheRepositoryShipsAreValid() throws IOException {
        for (String shipped : List.of("../deploy/debian/node/files/examples/repos.yaml", "../deploy/compose/repos.yaml")) {
            byte[] yaml = Files.readAllBytes(Path.of(shipped));
            assertThat(ManifestLoader.parse(yaml).repos()).as(shipped).isNotEmpty();
            assertThat(SCHEMA.validate(YAML.readTree(yaml))).as(shipped).isEmpty();
        }
    }

    @Test
    void theSchemaRefusesWhatTheReaderRefuses() throws IOException {
        assertThat(SCHEMA.validate(YAML.readTree(repo(", hostPath: [/srv]")))).isNotEmpty();
        assertThat(SCHEMA.validate(YAML.readTree("repos: [{name: a, guid: " + GUID + "}]"))).as("listen and daemon").isNotEmpty();
        assertThat(SCHEMA.validate(YAML.readTree(repo(", daemonService: 'x; reboot'")))).isNotEmpty();
    }

    @Test
    void anUnknownRepoKeyIsNamedWithWhereItIsAndTheKeyItWasMeantToBe() {
        assertThatThrownBy(() -> parse(repo(", hostPath: [/srv]")))
                .isInstanceOf(InvalidManifestException.class)
                .hasMessageStartingWith("unknown key 'hostPath' at repos[1]; did you mean 'hostPaths'?")
                .hasMessageContaining("known keys of a repo: name, guid, forkOf, listen, daemon");
        assertThatThrownBy(() -> parse(repo(", deamonDataRoot: /srv")))
                .hasMessageContaining("unknown key 'deamonDataRoot' at repos[1]; did you mean 'daemonDataRoot'?");
        assertThatThrownBy(() -> parse(repo(", HostPaths: [/srv]"))).as("keys are case-sensitive, the suggestion is not")
                .hasMessageContaining("unknown key 'HostPaths' at repos[1]; did you mean 'hostPaths'?");
    }

    @Test
    void anUnknownTopLevelKeyIsNamedToo() {
        assertThatThrownBy(() -> parse("machine: m1\nrepo: []\n"))
                .hasMessageStartingWith("unknown key 'repo' at the top level; did you mean 'repos'?");
        assertThatThrownBy(() -> parse("machines: m1\n"))
                .hasMessageStartingWith("unknown key 'machines' at the top level; did you mean 'machine'?");
    }

    @Test
    void aKeyFarFromEveryKnownOneGetsNoGuess() {
        assertThatThrownBy(() -> parse(repo(", privileged: true")))
                .hasMessageStartingWith("unknown key 'privileged' at repos[1] (known keys of a repo:")
                .hasMessageNotContaining("did you mean");
    }

    @Test
    void aKeyWrittenTwiceIsRefusedNotSilentlyOverridden() {
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - name: a
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: tcp://127.0.0.1:1
                    hostPaths: [/srv/a]
                    hostPaths: [/]
                """.formatted(GUID))).isInstanceOf(InvalidManifestException.class).hasMessageContaining("hostPaths");
    }

    @Test
    void setupsKeysAreReadAndChecked() {
        RepoEntry b = parse(repo(", daemonConfig: /srv/b/daemon.json, daemonRun: /srv/b/run, daemonService: rediacc-docker-b.service"))
                .repo("b").orElseThrow();
        assertThat(b.daemonSetup()).isEqualTo(new DaemonSetup("/srv/b/daemon.json", "/srv/b/run", "rediacc-docker-b.service"));
        assertThat(parse(repo("")).repo("b").orElseThrow().daemonSetup().configured()).isFalse();

        assertThatThrownBy(() -> parse(repo(", daemonConfig: daemon.json"))).hasMessageContaining("repos[1].daemonConfig")
                .hasMessageContaining("must be an absolute path");
        assertThatThrownBy(() -> parse(repo(", daemonService: 'x; reboot'"))).hasMessageContaining("repos[1].daemonService")
                .hasMessageContaining("is not a systemd unit name");
    }

    @Test
    void withoutAFallbackAnUnnamedMachineStaysUnnamed() {
        assertThat(ManifestLoader.parse("repos: []".getBytes(StandardCharsets.UTF_8), () -> null).machine()).isNull();
        assertThatThrownBy(() -> ManifestLoader.parse("repos: []".getBytes(StandardCharsets.UTF_8), () -> "Not A Name"))
                .hasMessageContaining("set machine: in the manifest");
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
