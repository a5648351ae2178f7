package io.rediacc.gpu.cli.output;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.contracts.yaml.YamlText;

import java.io.PrintWriter;

/** Prints JSON trees as indented JSON or as YAML that YAML 1.1 readers load back to the same tree. */
public final class Documents {

    private Documents() {
    }

    public static void print(PrintWriter out, OutputFormat format, JsonNode document) {
        if (format == OutputFormat.yaml) {
            out.print(YamlText.write(document, YamlText.Lists.FLUSH)); // YAML classes load on this first use only
        } else {
            out.println(Json.pretty(document));
        }
        out.flush();
    }
}
