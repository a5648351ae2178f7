package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./fleet reset} is how the README says to start a clean fleet (issue 33: replaying the README on a
 * reused {@code .fleet/} hit "container name /trainer is already in use"): the repository's own script,
 * run from a copy of the checkout, removes every piece of the fleet's state and keeps the build.
 */
class FleetResetTest {

    private static final Path SCRIPT = MarkdownLinksTest.REPO.resolve("fleet");

    private static String run(Path checkout, String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = checkout.resolve("fleet").toString();
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).directory(checkout.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out, StandardCharsets.UTF_8)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void resetRemovesTheFleetsStateAndKeepsTheBuild(@TempDir Path checkout) throws Exception {
        Files.copy(SCRIPT, checkout.resolve("fleet"));
        checkout.resolve("fleet").toFile().setExecutable(true);
        Path state = checkout.resolve(".fleet");
        // what a fleet that ran the README leaves: databases' suffix, Kafka and PostgreSQL data, the machine and its daemons
        Files.createDirectories(state.resolve("machine/root/mnt/rediacc/mounts/gpu-a/.rediacc/docker/containers/trainer"));
        Files.createDirectories(state.resolve("kafka/data"));
        Files.createDirectories(state.resolve("logs"));
        Files.writeString(state.resolve("fleet.env"), "RDC=...\n");
        Files.writeString(state.resolve("db-suffix"), "x1\n");
        Files.writeString(state.resolve(".hidden"), "state too\n");
        Files.writeString(state.resolve("build.stamp"), "");
        Files.writeString(state.resolve("build.log"), "built\n");

        String said = run(checkout, "reset");

        assertThat(said).contains("no fleet is running here").contains("the build stays")
                .contains("The next ./fleet up starts a clean fleet");
        try (Stream<Path> left = Files.list(state)) {
            assertThat(left.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly("build.log", "build.stamp");
        }
        assertThat(checkout.resolve("fleet")).exists();
    }

    /**
     * The databases a fleet made on the machine's PostgreSQL server go before the suffix that names them: every
     * {@code ./fleet reset} used to leave two behind ({@code ./fleet reset} runs this after {@code down}).
     */
    @Test
    void resetDropsTheFleetsDatabasesOnTheLocalServer(@TempDir Path checkout) throws Exception {
        Path state = checkout.resolve(".fleet");
        Files.createDirectories(state);
        Fleet fleet = new Fleet(checkout, state);
        List<String> names = List.of(fleet.databaseName("grants"), fleet.databaseName("inventory")); // writes the suffix
        try (FleetPostgres pg = FleetPostgres.openServer().orElseThrow(() -> new AssertionError("no local PostgreSQL"))) {
            names.forEach(pg::ensureDatabase);
            assertThat(databases(pg)).containsAll(names);

            fleet.dropDatabases();

            assertThat(databases(pg)).doesNotContainAnyElementsOf(names);
        }
    }

    /** The suffix goes into DROP DATABASE: one the fleet did not write (hex) drops nothing, and reset goes on. */
    @Test
    void aSuffixTheFleetDidNotWriteDropsNothing(@TempDir Path checkout) throws Exception {
        Path state = checkout.resolve(".fleet");
        Files.createDirectories(state);
        Files.writeString(state.resolve("database-suffix"), "x; DROP DATABASE postgres");
        Fleet fleet = new Fleet(checkout, state);
        PrintStream original = System.out;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(said, true, StandardCharsets.UTF_8));
            fleet.dropDatabases();
        } finally {
            System.setOut(original);
        }
        assertThat(said.toString(StandardCharsets.UTF_8)).startsWith("dropping no database: ")
                .contains("not a suffix the fleet wrote");
        try (FleetPostgres pg = FleetPostgres.openServer().orElseThrow(() -> new AssertionError("no local PostgreSQL"))) {
            assertThat(databases(pg)).contains("postgres");
        }
    }

    private static List<String> databases(FleetPostgres pg) throws Exception {
        var c = pg.credentials();
        try (var connection = java.sql.DriverManager.getConnection(c.jdbcUrl("postgres"), c.user(), c.password());
             var rows = connection.createStatement().executeQuery("SELECT datname FROM pg_database")) {
            List<String> names = new java.util.ArrayList<>();
            while (rows.next()) {
                names.add(rows.getString(1));
            }
            return names;
        }
    }

    @Test
    void resetOnAFreshCloneIsHarmless(@TempDir Path checkout) throws Exception {
        Files.copy(SCRIPT, checkout.resolve("fleet"));
        checkout.resolve("fleet").toFile().setExecutable(true);

        run(checkout, "reset");

        try (Stream<Path> left = Files.list(checkout.resolve(".fleet"))) {
            assertThat(left.toList()).isEmpty();
        }
    }
}
