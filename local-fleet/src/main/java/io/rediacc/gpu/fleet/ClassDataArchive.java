package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Class-data sharing (the JDK's AppCDS, its dynamic archive) for the JVMs that the fleet and its tests start again
 * and again from one build: grant-service, inventory-service, node-agent, docker-gate and the Kafka broker. The
 * first start of a build records the classes it loaded ({@code -XX:ArchiveClassesAtExit}, written as the JVM exits);
 * every later start maps that archive ({@code -XX:SharedArchiveFile}) instead of reading, parsing and verifying the
 * same classes again. A grant-service start took 6.6 s of CPU to "started" without and 4.1-4.8 s with it (2 cores,
 * idle), and CI starts the services dozens of times.
 * <p>
 * An archive belongs to one JDK and one build: its name carries a digest of the JDK and of the files it was made
 * from (their paths, sizes and modification times), so a rebuild or a JDK update starts a new one instead of
 * handing the JVM an archive it would refuse. A JVM maps a truncated archive and crashes, so an archive is written
 * under a temporary name and takes its real name only when its JVM ended normally (exit 0, or 130/143 after
 * SIGINT/SIGTERM, which the JVM handles by running its shutdown, the dump included); what a killed JVM wrote is
 * deleted, and a later start records the archive again. One JVM at a time records a given archive.
 */
final class ClassDataArchive {

    /** System property: {@code false} maps the archives there are but records none (a fleet whose children outlive their use). */
    static final String RECORD = "rediacc.class-data.record";
    private static final String DUMP = "-XX:ArchiveClassesAtExit=";
    private static final String TEMPORARY = ".tmp";
    private static final Path DIR = directory();
    /** Archives a JVM of ours is recording now, or has recorded. */
    private static final Set<Path> TRIED = new HashSet<>();

    private ClassDataArchive() {
    }

    /** The options for a Quarkus application started from its build output ({@code <module>/target/quarkus-app}). */
    static List<String> forQuarkusApp(String name, Path quarkusRunJar) {
        return jvmOptions(name, List.of(quarkusRunJar, quarkusRunJar.resolveSibling("quarkus/quarkus-application.dat")));
    }

    /** The options for a main class run from {@code classpath} (entries separated by ':'; {@code dir/*}: its jars). */
    static List<String> forClasspath(String name, String classpath) {
        List<Path> inputs = new ArrayList<>();
        for (String entry : classpath.split(java.io.File.pathSeparator)) {
            if (entry.endsWith("/*")) {
                try (Stream<Path> jars = Files.list(Path.of(entry.substring(0, entry.length() - 2)))) {
                    jars.filter(j -> j.toString().endsWith(".jar")).sorted().forEach(inputs::add);
                } catch (IOException e) {
                    return List.of();
                }
            } else if (!entry.isEmpty()) {
                inputs.add(Path.of(entry));
            }
        }
        return jvmOptions(name, inputs);
    }

    /**
     * The JVM options for one start of {@code name}, made from {@code inputs} (its jar, its class path): map the
     * archive when there is one, otherwise record it (one JVM at a time), otherwise none.
     */
    static synchronized List<String> jvmOptions(String name, List<Path> inputs) {
        if (DIR == null) {
            return List.of();
        }
        Path archive;
        try {
            archive = DIR.resolve(name + "-" + digest(inputs) + ".jsa");
        } catch (UncheckedIOException e) {
            return List.of(); // an input changed under us (a rebuild): start without; an archive only saves time
        }
        if (Files.isRegularFile(archive)) {
            return List.of("-XX:SharedArchiveFile=" + archive);
        }
        if (!Boolean.parseBoolean(System.getProperty(RECORD, "true")) || !TRIED.add(archive)) {
            return List.of();
        }
        try {
            Files.createDirectories(DIR);
        } catch (IOException e) {
            return List.of();
        }
        // (-Xlog:cds=off: the dump's "Skipping <class>: Not linked" lines, thousands of them, stay out of the child's log)
        return List.of(DUMP + archive + "." + UUID.randomUUID() + TEMPORARY, "-Xlog:cds=off");
    }

    /**
     * How long a JVM that records an archive may take to stop: its shutdown plus the dump (grant-service: 5 s of
     * shutdown and 1.6 s of dump on an idle machine, many times that on a loaded one), so that a stop does not
     * SIGKILL it half-way and throw the archive away.
     */
    static Duration stopGrace(List<String> command, Duration grace) {
        return command.stream().anyMatch(a -> a.startsWith(DUMP)) && grace.compareTo(RECORDING_STOP) < 0 ? RECORDING_STOP : grace;
    }

    private static final Duration RECORDING_STOP = Duration.ofSeconds(60);

    /** Keeps the archive that {@code command}'s JVM wrote, if it wrote one and ended normally. */
    static synchronized void exited(List<String> command, int exitCode) {
        String option = command.stream().filter(a -> a.startsWith(DUMP)).findFirst().orElse(null);
        if (option == null) {
            return;
        }
        Path written = Path.of(option.substring(DUMP.length()));
        String file = written.getFileName().toString();
        Path archive = written.resolveSibling(file.substring(0, file.lastIndexOf('.', file.length() - TEMPORARY.length() - 1)));
        try {
            if (exitCode != 0 && exitCode != 130 && exitCode != 143) {
                Files.deleteIfExists(written);
                TRIED.remove(archive); // killed (a test's SIGKILL): a later start records it
                return;
            }
            if (!Files.exists(written)) {
                return;
            }
            // rename(2): an archive another process recorded meanwhile is replaced; both are whole, and a JVM that
            // already mapped the old one keeps its inode
            Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE);
            removeOlder(archive);
        } catch (IOException | UncheckedIOException e) {
            // an archive only saves time: without it the next start records one again
        }
    }

    /** Archives of earlier builds of the same JVM (same name, other digest) are never mapped again. */
    private static void removeOlder(Path archive) throws IOException {
        String file = archive.getFileName().toString();
        String prefix = file.substring(0, file.lastIndexOf('-') + 1);
        try (Stream<Path> all = Files.list(archive.getParent())) {
            for (Path p : all.toList()) {
                String other = p.getFileName().toString();
                if (other.startsWith(prefix) && other.endsWith(".jsa") && !other.equals(file)
                        && other.substring(prefix.length()).indexOf('-') < 0) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static String digest(List<Path> inputs) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((System.getProperty("java.home") + "\n" + System.getProperty("java.vm.version") + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            for (Path p : inputs) {
                Path abs = p.toAbsolutePath().normalize();
                String line = abs + " " + (Files.exists(abs) ? Files.size(abs) + " " + Files.getLastModifiedTime(abs).toMillis() : "-");
                sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code local-fleet/target/class-data}: beside this module's build output (its jar for {@code ./fleet}, its
     * classes for the tests), so {@code mvn clean} removes the archives with the build they were made from.
     */
    private static Path directory() {
        try {
            Path code = Path.of(ClassDataArchive.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path target = code.getParent();
            return target != null && target.getFileName() != null && target.getFileName().toString().equals("target")
                    ? target.resolve("class-data") : null;
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
