package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** A JVM the fleet starts records its class-data archive once, later starts map it, and a killed JVM's half is dropped. */
class ClassDataArchiveTest {

    static final Path LOGS = Path.of("target/class-data-test").toAbsolutePath();
    /** The child's jar (class-data sharing takes classes from jars, not from a directory such as test-classes). */
    static final Path JAR = LOGS.resolve("child.jar");
    static final String CLASSPATH = JAR.toString();

    @BeforeAll
    static void childJar() throws Exception {
        Files.createDirectories(LOGS);
        String entry = Child.class.getName().replace('.', '/') + ".class";
        try (var out = new JarOutputStream(Files.newOutputStream(JAR));
             var in = Child.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
    }

    /** The child: says which archive it runs on, then ends (or, with an argument, waits to be killed). */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            System.out.println("child up");
            if (args.length > 0) {
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }

    @Test
    void theFirstStartRecordsTheArchiveAndTheNextStartsMapIt() throws Exception {
        String name = "archive-test-" + UUID.randomUUID();
        List<String> first = ClassDataArchive.forClasspath(name, CLASSPATH);
        assertThat(first).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
        // another start while the first records goes without (one recorder at a time)
        assertThat(ClassDataArchive.forClasspath(name, CLASSPATH)).isEmpty();

        ChildProcess recorder = ChildProcess.start(name, command(first), LOGS, LOGS, Map.of());
        awaitEnd(recorder);

        List<String> later = ClassDataArchive.forClasspath(name, CLASSPATH);
        assertThat(later).singleElement().asString().startsWith("-XX:SharedArchiveFile=").endsWith(".jsa");
        Path archive = Path.of(later.get(0).substring("-XX:SharedArchiveFile=".length()));
        assertThat(archive).isRegularFile();
        // -Xshare:on: the JVM refuses to start unless it really maps the archive
        List<String> mapped = command(later);
        mapped.add(1, "-Xshare:on");
        ChildProcess user = ChildProcess.start(name + "-mapped", mapped, LOGS, LOGS, Map.of());
        awaitEnd(user);
        assertThat(Files.readString(user.log())).contains("child up").doesNotContain("Unable to use shared archive");
        Files.deleteIfExists(archive);
    }

    @Test
    void aRecorderThatIsKilledLeavesNoArchiveAndTheNextStartRecordsAgain() throws Exception {
        String name = "archive-killed-" + UUID.randomUUID();
        List<String> options = ClassDataArchive.forClasspath(name, CLASSPATH);
        List<String> cmd = command(options);
        cmd.add("wait");
        ChildProcess recorder = ChildProcess.start(name, cmd, LOGS, LOGS, Map.of());
        org.awaitility.Awaitility.await().atMost(ChildProcess.START_BOUND)
                .until(() -> Files.exists(recorder.log()) && Files.readString(recorder.log()).contains("child up"));
        ProcessHandle.of(recorder.pid()).orElseThrow().destroyForcibly();
        awaitEnd(recorder);

        String written = options.get(0).substring("-XX:ArchiveClassesAtExit=".length());
        assertThat(Path.of(written)).doesNotExist();
        try (var files = Files.list(Path.of(written).getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(f -> f.startsWith(name));
        }
        assertThat(ClassDataArchive.forClasspath(name, CLASSPATH)).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    }

    @Test
    void aProcessThatOnlyMapsRecordsNothing() {
        String name = "archive-map-only-" + UUID.randomUUID();
        System.setProperty(ClassDataArchive.RECORD, "false");
        try {
            assertThat(ClassDataArchive.forClasspath(name, CLASSPATH)).isEmpty();
        } finally {
            System.clearProperty(ClassDataArchive.RECORD);
        }
        assertThat(ClassDataArchive.forClasspath(name, CLASSPATH)).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    }

    private static List<String> command(List<String> archiveOptions) {
        List<String> cmd = new ArrayList<>(List.of(KafkaBroker.javaBin(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        cmd.addAll(archiveOptions);
        cmd.addAll(List.of("-cp", CLASSPATH, Child.class.getName()));
        return cmd;
    }

    private static void awaitEnd(ChildProcess child) {
        org.awaitility.Awaitility.await().atMost(1, TimeUnit.MINUTES).until(() -> !child.alive());
        child.stop(Duration.ofMinutes(1)); // of a child that has ended: keeps what it recorded (as ./fleet down does)
    }
}
