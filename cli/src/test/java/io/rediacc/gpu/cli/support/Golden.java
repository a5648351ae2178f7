package io.rediacc.gpu.cli.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compares rdc's output with a golden file in {@code src/test/resources/golden/}. Run the tests
 * with {@code -Drdc.golden.update=true} to rewrite the files after a deliberate change, then read
 * the diff.
 */
public final class Golden {

    private Golden() {
    }

    public static void assertMatches(String output, String file) {
        if (Boolean.getBoolean("rdc.golden.update")) {
            try {
                Path path = Path.of("src/test/resources/golden", file);
                Files.writeString(path, output);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        try (InputStream in = Golden.class.getResourceAsStream("/golden/" + file)) {
            assertThat(in).as("golden file %s", file).isNotNull();
            String expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(output).as("output against golden/%s", file).isEqualTo(expected);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
