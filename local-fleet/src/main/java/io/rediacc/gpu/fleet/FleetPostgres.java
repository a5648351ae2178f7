package io.rediacc.gpu.fleet;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The fleet's PostgreSQL: the local server when one is reachable, otherwise an embedded
 * PostgreSQL (not as root: PostgreSQL refuses to run as root), otherwise one clear line saying what
 * to start. Each service gets its own database.
 */
final class FleetPostgres implements AutoCloseable {

    record Credentials(String host, int port, String user, String password) {
        String reactiveUrl(String db) {
            return "postgresql://" + host + ":" + port + "/" + db;
        }

        String jdbcUrl(String db) {
            return "jdbc:postgresql://" + host + ":" + port + "/" + db;
        }
    }

    private final Credentials credentials;
    private final AutoCloseable embedded;

    private FleetPostgres(Credentials credentials, AutoCloseable embedded) {
        this.credentials = credentials;
        this.embedded = embedded;
    }

    Credentials credentials() {
        return credentials;
    }

    boolean embedded() {
        return embedded != null;
    }

    static FleetPostgres open(Path dataDir) {
        String host = env("PGHOST", "127.0.0.1");
        int port = Integer.parseInt(env("PGPORT", "5432"));
        if (reachable(host, port)) {
            return server(host, port);
        }
        if ("root".equals(System.getProperty("user.name"))) {
            throw new FleetException("no PostgreSQL at " + host + ":" + port + " and an embedded one cannot run as root: start PostgreSQL "
                    + "(e.g. pg_ctlcluster --skip-systemctl-redirect 15 main start) or point PGHOST/PGPORT at one.");
        }
        try {
            var pg = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir).setCleanDataDirectory(false).setPort(FleetPorts.pick()).start();
            return new FleetPostgres(new Credentials("127.0.0.1", pg.getPort(), "postgres", "postgres"), pg);
        } catch (IOException e) {
            throw new FleetException("could not start an embedded PostgreSQL: " + e.getMessage(), e);
        }
    }

    /** The local server at host:port, logged into with the first role that works. */
    private static FleetPostgres server(String host, int port) {
        List<Credentials> candidates = new ArrayList<>();
        if (System.getenv("PGUSER") != null) {
            candidates.add(new Credentials(host, port, System.getenv("PGUSER"), env("PGPASSWORD", "")));
        }
        candidates.add(new Credentials(host, port, "rediacc", "rediacc"));
        candidates.add(new Credentials(host, port, "postgres", env("PGPASSWORD", "postgres")));
        candidates.add(new Credentials(host, port, System.getProperty("user.name"), ""));
        List<String> failures = new ArrayList<>();
        for (Credentials c : candidates) {
            try (Connection ignored = DriverManager.getConnection(c.jdbcUrl("postgres"), c.user(), c.password())) {
                return new FleetPostgres(c, null);
            } catch (SQLException e) {
                failures.add(c.user() + ": " + e.getMessage());
            }
        }
        throw new FleetException("PostgreSQL at " + host + ":" + port + " refused every role tried (" + String.join("; ", failures)
                + "). Set PGUSER and PGPASSWORD to a role that may create databases, or run .ci/run once to create the rediacc role.");
    }

    /**
     * The local server when one is reachable, else nothing: never an embedded one (for {@code ./fleet reset}, which
     * must not start a server to clean one whose data it is about to delete).
     */
    static java.util.Optional<FleetPostgres> openServer() {
        String host = env("PGHOST", "127.0.0.1");
        int port = Integer.parseInt(env("PGPORT", "5432"));
        return reachable(host, port) ? java.util.Optional.of(server(host, port)) : java.util.Optional.empty();
    }

    /** Creates {@code database} unless it exists. */
    void ensureDatabase(String database) {
        try (Connection c = DriverManager.getConnection(credentials.jdbcUrl("postgres"), credentials.user(), credentials.password());
             Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
                if (rs.next()) {
                    return;
                }
            }
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new FleetException("could not create database " + database + " as " + credentials.user() + ": " + e.getMessage(), e);
        }
    }

    /** Drops {@code database} if it exists (tests clean up after their own fleet). */
    void dropDatabase(String database) {
        try (Connection c = DriverManager.getConnection(credentials.jdbcUrl("postgres"), credentials.user(), credentials.password());
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new FleetException("could not drop database " + database + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws Exception {
        if (embedded != null) {
            embedded.close();
        }
    }

    static boolean reachable(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
