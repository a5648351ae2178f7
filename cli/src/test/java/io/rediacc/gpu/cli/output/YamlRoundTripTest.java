package io.rediacc.gpu.cli.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.cli.client.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rdc -o yaml} loads, with a YAML 1.1 reader (PyYAML's safe_load, SnakeYAML), to what {@code -o json} prints. */
class YamlRoundTripTest {

    @ParameterizedTest
    @ValueSource(strings = {"0000:18:00.0", "00000000:01:00.0", "12:30", "1:20:30.5", "yes", "No", "on", "OFF",
            "y", "n", "null", "~", "", "1e3", "0x1F", "010", "0b101", "1_000", ".inf", "-.Inf", ".nan", "2026-12-01",
            "2026-12-01T10:00:00Z", "=", "<<", "550.127.05", "- a", "a: b", "#x", "true", "3", "-1.5"})
    void aStringThatYaml11ReadsAsSomethingElseIsQuoted(String text) {
        ObjectNode document = Json.mapper().createObjectNode().put("value", text);
        document.putObject(text.isEmpty() ? "empty" : text).put("k", 1);

        assertThat(roundTrip(document)).isEqualTo(document);
    }

    @Test
    void plainTextStaysUnquoted() {
        ObjectNode document = Json.mapper().createObjectNode().put("name", "NVIDIA H100 80GB HBM3")
                .put("device", "nvidia.com/gpu=0");

        assertThat(print(document)).isEqualTo("name: NVIDIA H100 80GB HBM3\ndevice: nvidia.com/gpu=0\n");
    }

    @Test
    void everyRecordedServiceAnswerRoundTrips() throws IOException {
        List<Path> answers;
        try (Stream<Path> walk = Files.walk(Path.of("src/test/resources/recorded"))) {
            answers = walk.filter(p -> p.toString().endsWith(".json")).toList();
        }
        assertThat(answers).hasSizeGreaterThan(3);
        for (Path answer : answers) {
            JsonNode document = Json.mapper().readTree(answer.toFile());
            assertThat(roundTrip(document)).as(answer.toString()).isEqualTo(document);
        }
    }

    static String print(JsonNode document) {
        StringWriter text = new StringWriter();
        Documents.print(new PrintWriter(text), OutputFormat.yaml, document);
        return text.toString();
    }

    static JsonNode roundTrip(JsonNode document) {
        Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(print(document));
        // a plain mapper: rdc's own leaves out null fields, which would hide a null lost in the YAML
        return new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(loaded);
    }
}
