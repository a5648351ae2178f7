package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Starts one of the product's Quarkus applications from its build output, configured by system properties. */
final class Services {

    private Services() {
    }

    static ChildProcess start(String module, Path repoRoot, Path logs, Map<String, ?> config, String... args) throws IOException {
        Path jar = repoRoot.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new FleetException(jar + " is missing; build first (./fleet up does: mvn -B -DskipTests package)");
        }
        List<String> command = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(ClassDataArchive.forQuarkusApp(module, jar));
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        return ChildProcess.start(module, command, repoRoot, logs, Map.of());
    }
}
