package io.rediacc.gpu.api.problem;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The codes of the error model: kebab-case, each documented once in docs/ERRORS.md with its status. */
class ProblemTypeTest {

    private static final Path ERRORS = Path.of(System.getProperty("basedir", ".")).resolve("../docs/ERRORS.md").normalize();
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z-]+)` \\| (\\d{3}|4xx) \\|", Pattern.MULTILINE);

    @Test
    void everyCodeIsKebabCaseAndItsTypeEndsInIt() {
        for (ProblemType type : ProblemType.values()) {
            assertThat(type.code()).matches("[a-z]+(-[a-z]+)*");
            assertThat(type.uri().toString()).isEqualTo("https://rediacc.io/problems/" + type.code());
        }
    }

    @Test
    void errorsMdListsEveryCodeWithItsStatusAndNoOther() throws IOException {
        Map<String, String> documented = new java.util.TreeMap<>();
        Matcher row = ROW.matcher(Files.readString(ERRORS));
        while (row.find()) {
            assertThat(documented.put(row.group(1), row.group(2))).as("documented twice: " + row.group(1)).isNull();
        }
        Map<String, String> inCode = Arrays.stream(ProblemType.values()).collect(Collectors.toMap(ProblemType::code,
                t -> t == ProblemType.REQUEST_REFUSED ? "4xx" : Integer.toString(t.status()), (a, b) -> a, java.util.TreeMap::new));

        assertThat(documented).isEqualTo(inCode);
    }

    @Test
    void aProblemBodyCarriesTheCodeTheRequestIdAndItsNamedFieldsAtTheTop() {
        ProblemBody body = new ApiProblem(ProblemType.UNKNOWN_MACHINE, "machine m is unknown", "check the name",
                Map.of("machine", "m")).body("req-1");

        assertThat(body.getType()).isEqualTo("https://rediacc.io/problems/unknown-machine");
        assertThat(body.getTitle()).isEqualTo("Unknown machine");
        assertThat(body.getStatus()).isEqualTo(404);
        assertThat(body.getError()).isEqualTo("unknown-machine");
        assertThat(body.getRequestId()).isEqualTo("req-1");
        assertThat(body.getExtensions()).containsEntry("machine", "m");
    }

    @Test
    void aSaneCallerIdIsKeptAndAnyOtherReplaced() {
        assertThat(RequestIds.accepted("abc-123_x.y:z")).isEqualTo("abc-123_x.y:z");
        assertThat(RequestIds.accepted("a\r\nforged: line")).matches("[0-9a-f-]{36}");
        assertThat(RequestIds.accepted("")).matches("[0-9a-f-]{36}");
        assertThat(RequestIds.accepted(null)).matches("[0-9a-f-]{36}");
        assertThat(RequestIds.accepted("x".repeat(65))).matches("[0-9a-f-]{36}");
    }
}
