package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository's documentation stands on its own: every relative link in a Markdown file
 * resolves to a file or folder inside the repository, and every file that
 * {@code docs/ARCHITECTURE.md}'s "where to change what" table names exists, so the answer to
 * "where is rule X" cannot silently go stale when code moves.
 */
class MarkdownLinksTest {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    /** Inline links {@code [text](target)}; images too. Reference-style links are not used here. */
    static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    /** A table cell that names a file in back-ticks: {@code | `path/To/File.java` |}. */
    static final Pattern NAMED_FILE = Pattern.compile("\\|\\s*`([A-Za-z0-9_./-]+\\.[a-z]+)`\\s*\\|?\\s*$");
    static final Set<String> NOT_OURS = Set.of("target", ".git", ".fleet", "node_modules");

    @Test
    void everyRelativeLinkResolvesInsideTheRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        List<Path> files = markdownFiles();
        assertThat(files).as("the repository's Markdown files").hasSizeGreaterThan(10);
        for (Path file : files) {
            String text = Files.readString(file);
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("#") || target.matches("^[a-z]+:.*")) {
                    continue; // an anchor in the same file, or an absolute URL
                }
                String path = target.replaceFirst("#.*$", "");
                Path resolved = file.getParent().resolve(path).normalize();
                if (!resolved.startsWith(REPO)) {
                    broken.add(REPO.relativize(file) + ": " + target + " leaves the repository");
                } else if (!Files.exists(resolved)) {
                    broken.add(REPO.relativize(file) + ": " + target + " does not exist");
                }
            }
        }
        assertThat(broken).as("links in Markdown files").isEmpty();
    }

    @Test
    void everyFileTheArchitectureTableNamesExists() throws IOException {
        List<String> named = new ArrayList<>();
        for (String line : Files.readAllLines(REPO.resolve("docs/ARCHITECTURE.md"))) {
            Matcher m = NAMED_FILE.matcher(line);
            if (m.find()) {
                named.add(m.group(1));
            }
        }
        assertThat(named).as("files named in the where-to-change-what table").hasSizeGreaterThan(10);
        assertThat(named).as("named files that do not exist")
                .filteredOn(path -> !Files.exists(REPO.resolve(path)))
                .isEmpty();
    }

    static List<Path> markdownFiles() throws IOException {
        try (Stream<Path> walk = Files.walk(REPO)) {
            return walk.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> REPO.relativize(p).getNameCount() > 0)
                    .filter(p -> {
                        for (Path part : REPO.relativize(p)) {
                            if (NOT_OURS.contains(part.toString())) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .toList();
        }
    }
}
