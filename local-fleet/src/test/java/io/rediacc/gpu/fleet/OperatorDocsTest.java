package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a new operator reads first says what the fleet needs and does (issue 33, problems 6–8 and 10):
 * the quick start's commands exist as written, its prerequisites table names everything the fleet and the
 * tests need with where each comes from, {@code ./fleet reset} is documented beside {@code ./fleet down},
 * docs/BENCHMARKS.md opens with its headline table rather than run logs, and its "The commands" lists
 * every script under bench/, counted right.
 */
class OperatorDocsTest {

    private static final Path REPO = MarkdownLinksTest.REPO;

    private static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n## " + heading + "\n");
        assertThat(start).as("section ## %s", heading).isNotNegative();
        int end = markdown.indexOf("\n## ", start + 4);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }

    @Test
    void theQuickStartsCommandsAreScriptsOfTheCheckout() throws IOException {
        String quickStart = section(Files.readString(REPO.resolve("README.md")), "Quick start");
        int block = quickStart.indexOf("```sh\n");
        assertThat(block).as("the quick start's code block").isNotNegative();
        List<String> commands = quickStart.substring(block + 6, quickStart.indexOf("\n```", block + 6)).lines()
                .map(l -> l.replaceAll("\\s+#.*$", "").strip()).filter(l -> !l.isEmpty()).toList();
        assertThat(commands).containsExactly("./fleet up", ".ci/run");
        for (String command : commands) {
            assertThat(REPO.resolve(command.split(" ")[0])).as(command).isExecutable();
        }
    }

    @Test
    void theQuickStartNamesEveryPrerequisiteAndWhereItComesFrom() throws IOException {
        String quickStart = section(Files.readString(REPO.resolve("README.md")), "Quick start");
        List<String> rows = quickStart.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| prerequisite")).toList();
        // the fleet's needs the first README left out: root, PostgreSQL, Debian's Docker packages, an SSH server
        for (String needed : List.of("Java 17 and Maven", "root", "PostgreSQL", "Debian's Docker packages",
                "an SSH server", "OpenSSH's client", "Kafka")) {
            assertThat(rows).as("a row for %s", needed).anySatisfy(row -> {
                assertThat(row).startsWith("| " + needed);
                assertThat(row.split("\\|")).as("%s: the need, ./fleet up's source, .ci/run's source", needed).hasSize(4);
            });
        }
        assertThat(quickStart).contains("`./fleet reset`").contains("`mvn -B verify` alone");
    }

    @Test
    void resetIsDocumentedWhereTheFleetsCommandsAre() throws IOException {
        String fleet = Files.readString(REPO.resolve("fleet"));
        assertThat(fleet).contains("./fleet up [-d] | ./fleet down | ./fleet reset");
        assertThat(Files.readString(REPO.resolve("local-fleet/README.md"))).contains("./fleet reset");
    }

    @Test
    void benchmarksOpenWithOneHeadlineTableAndKeepRunLogsInTheAppendix() throws IOException {
        List<String> lines = Files.readAllLines(REPO.resolve("docs/BENCHMARKS.md"));
        String firstTable = lines.stream().filter(l -> l.startsWith("|")).findFirst().orElseThrow();
        assertThat(firstTable.replace(" ", "")).startsWith("|figure|ours|anchor").contains("|ratio|goal|date");
        assertThat(lines.indexOf(firstTable)).as("the table comes first, before any command or log").isLessThan(15);
        assertThat(lines).as("run logs live in BENCHMARKS-LOG.md").hasSizeLessThan(300);
        assertThat(REPO.resolve("docs/BENCHMARKS-LOG.md")).exists();
    }

    @Test
    void theBenchmarkCommandsAreEveryScriptUnderBenchCountedRight() throws IOException {
        String commands = section(Files.readString(REPO.resolve("docs/BENCHMARKS.md")), "The commands");
        List<String> scripts;
        try (var s = Files.list(REPO.resolve("bench"))) {
            scripts = s.map(p -> "bench/" + p.getFileName()).filter(n -> n.endsWith(".sh")).sorted().toList();
        }
        List<String> rows = commands.lines().filter(l -> l.startsWith("| `bench/"))
                .map(l -> l.substring(3, l.indexOf('`', 3))).sorted().toList();
        List<String> words = List.of("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty");

        assertThat(rows).as("the commands table: one row per script under bench/").isEqualTo(scripts);
        assertThat(commands).as("the count before the table").containsIgnoringCase(words.get(scripts.size()) + " commands under `bench/`");
    }
}
