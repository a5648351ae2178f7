package io.rediacc.gpu.cli.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** rdc reads answers into trees without an ObjectMapper (start-up); the trees must be the ones the mapper builds. */
class JsonTreeTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void everyRecordedAnswerReadsAsObjectMapperReadsIt() throws Exception {
        List<Path> answers;
        try (Stream<Path> files = Files.walk(Path.of("src/test/resources/recorded"))) {
            answers = files.filter(f -> f.toString().endsWith(".json")).toList();
        }
        assertThat(answers).hasSizeGreaterThan(10);
        for (Path answer : answers) {
            String body = Files.readString(answer);
            assertThat(Json.treeOrNull(body)).as(answer.toString()).isNotNull().isEqualTo(MAPPER.readTree(body));
        }
    }

    @Test
    void numbersNullsAndNestingKeepTheirNodeTypes() throws Exception {
        String body = "{\"i\":1,\"l\":12345678901,\"b\":123456789012345678901234567890,\"d\":1.5e3,\"t\":true,"
                + "\"f\":false,\"n\":null,\"a\":[[],{},\"x\"],\"dup\":1,\"dup\":2}";

        assertThat(Json.treeOrNull(body)).isEqualTo(MAPPER.readTree(body));
        assertThat(Json.treeOrNull("[1,2]")).isEqualTo(MAPPER.readTree("[1,2]"));
    }

    @Test
    void whatIsNotOneJsonDocumentIsNoTree() {
        assertThat(Json.treeOrNull("")).isNull();
        assertThat(Json.treeOrNull("<html>Bad Gateway</html>")).isNull();
        assertThat(Json.treeOrNull("{\"a\":")).isNull();
        assertThat(Json.treeOrNull("{} {}")).isNull();
    }
}
