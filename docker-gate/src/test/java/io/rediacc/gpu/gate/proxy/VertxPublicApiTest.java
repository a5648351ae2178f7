package io.rediacc.gpu.gate.proxy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate reaches Vert.x through its public API only: {@code io.vertx.core.impl} moved to
 * {@code io.vertx.core.internal} in Vert.x 5 and is no contract, so a cast to {@code VertxInternal}
 * breaks on the next Quarkus upgrade.
 */
class VertxPublicApiTest {

    private static final Pattern INTERNAL = Pattern.compile("io\\.vertx\\.core\\.(impl|internal)\\.|\\bVertxInternal\\b");

    @Test
    void mainCodeUsesNoVertxInternals() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Files.readString(f).lines().filter(l -> INTERNAL.matcher(l).find()).forEach(l -> offenders.add(f + ": " + l.strip()));
            }
        }
        assertThat(offenders).as("use Vertx#nettyEventLoopGroup() and the other public methods instead").isEmpty();
    }
}
