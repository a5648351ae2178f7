package io.rediacc.gpu.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.rediacc.gpu.cli.client.Json;

import java.io.PrintWriter;

/** Prints JSON trees as indented JSON or as YAML that YAML 1.1 readers load back to the same tree. */
public final class Documents {

    private Documents() {
    }

    /** The YAML mapper, made on first use: {@code -o json} and tables need neither it nor SnakeYAML. */
    private static final class Yaml {
        static final ObjectMapper MAPPER = new ObjectMapper(YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                .stringQuotingChecker(new YamlSafeQuoting())
                .build());
    }

    public static void print(PrintWriter out, OutputFormat format, JsonNode document) {
        try {
            if (format == OutputFormat.yaml) {
                out.print(Yaml.MAPPER.writeValueAsString(document));
            } else {
                out.println(Json.pretty(document));
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot print the answer: " + e.getOriginalMessage(), e);
        }
        out.flush();
    }
}
