package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of its own ({@code initdb} + {@code pg_ctl} in a temporary directory, on a
 * free port) so a fault test can really stop and start the server without touching the machine's
 * shared one. Runs as the {@code postgres} user when the test runs as root (PostgreSQL refuses root).
 */
final class PrivatePostgres implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final int port;

    private PrivatePostgres(Path bin, Path dir, int port) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
    }

    /** The installed server binaries, or null when this machine has none (the caller skips). */
    static Path installedBin() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (var versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparing(p -> Integer.parseInt(p.getParent().getFileName().toString().replaceAll("\\D", "0"))))
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    static PrivatePostgres create(Path bin) throws Exception {
        Path dir = Files.createTempDirectory("faults-pg-");
        // one port for the server's life: FaultsIT stops and starts it, and grant-service reconnects to the same URL
        // (FleetPorts' range: no outgoing connection takes the port while the server is down)
        int port = FleetPorts.pick();
        PrivatePostgres pg = new PrivatePostgres(bin, dir, port);
        if (isRoot()) {
            pg.run("chown", "-R", "postgres:postgres", dir.toString());
        }
        pg.asOwner(bin.resolve("initdb") + " -D " + dir.resolve("data") + " -U postgres -A trust -E UTF8 --no-sync");
        pg.start();
        return pg;
    }

    int port() {
        return port;
    }

    String reactiveUrl(String db) {
        return "postgresql://127.0.0.1:" + port + "/" + db;
    }

    Connection connect(String db) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + db, "postgres", "");
    }

    void createDatabase(String db) throws SQLException {
        try (Connection c = connect("postgres"); var s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
    }

    void start() throws Exception {
        asOwner(bin.resolve("pg_ctl") + " -D " + dir.resolve("data") + " -l " + dir.resolve("server.log") + " -w -t 60"
                + " -o '-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off' start");
    }

    /** A fast shutdown: open transactions are rolled back, clients are disconnected. */
    void stop() throws Exception {
        asOwner(bin.resolve("pg_ctl") + " -D " + dir.resolve("data") + " -m fast -w -t 60 stop");
    }

    @Override
    public void close() throws Exception {
        try {
            stop();
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private void asOwner(String shell) throws Exception {
        if (isRoot()) {
            run("su", "postgres", "-s", "/bin/sh", "-c", shell);
        } else {
            run("/bin/sh", "-c", shell);
        }
    }

    private void run(String... command) throws Exception {
        Path out = Files.createTempFile("faults-pg-cmd", ".log");
        Process p = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS) || p.exitValue() != 0) {
            String log = Files.readString(out);
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + log
                    + (Files.exists(dir.resolve("server.log")) ? Files.readString(dir.resolve("server.log")) : ""));
        }
        Files.deleteIfExists(out);
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
