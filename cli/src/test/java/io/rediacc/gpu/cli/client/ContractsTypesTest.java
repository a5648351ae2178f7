package io.rediacc.gpu.cli.client;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * rdc reads the services' REST bodies as contracts' records (contracts.api), never as copies of its own:
 * a copy drifts from what the service writes without any test noticing.
 */
class ContractsTypesTest {

    private static final Pattern RECORD = Pattern.compile("\\brecord\\s+(\\w+)\\s*\\(");

    @Test
    void rdcDeclaresNoRecordNamedLikeAContractsRestBody() throws IOException {
        Set<String> contracts = new TreeSet<>();
        for (Path f : javaFiles(Path.of("../contracts/src/main/java/io/rediacc/gpu/contracts/api"))) {
            contracts.add(f.getFileName().toString().replace(".java", ""));
            Matcher m = RECORD.matcher(Files.readString(f));
            while (m.find()) {
                contracts.add(m.group(1));
            }
        }
        assertThat(contracts).contains("MachineDetail", "GateView", "MachineGrantsView", "RemovalView");
        List<String> copies = new ArrayList<>();
        for (Path f : javaFiles(Path.of("src/main/java"))) {
            Matcher m = RECORD.matcher(Files.readString(f));
            while (m.find()) {
                if (contracts.contains(m.group(1))) {
                    copies.add(f + ": record " + m.group(1));
                }
            }
        }
        assertThat(copies).as("use the record in contracts.api").isEmpty();
    }

    private static List<Path> javaFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).toList();
        }
    }
}
