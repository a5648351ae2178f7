package io.rediacc.gpu.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * A fresh database on the local PostgreSQL server, created for one test run and dropped after it.
 * Host, port, user and password come from {@code PGHOST}, {@code PGPORT}, {@code PGUSER} and
 * {@code PGPASSWORD} (defaults: 127.0.0.1, 5432, and the role {@code .ci/run} prepares,
 * rediacc/rediacc).
 */
public final class LocalPostgres implements AutoCloseable {

    static {
        // A @TestProfile restarts Quarkus in a new class loader; DriverManager hands out only drivers whose
        // class the caller's loader sees, so the driver must register itself in this loader too.
        try {
            Class.forName("org.postgresql.Driver");
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public static final String DEFAULT_USER = "rediacc";
    public static final String DEFAULT_PASSWORD = "rediacc";

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final String database;

    private LocalPostgres(String host, int port, String user, String password, String database) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.database = database;
    }

    /** Creates a new, empty database; fails with what to start or set when the server is not usable. */
    public static LocalPostgres createDatabase() {
        return createDatabase(env("PGHOST", "127.0.0.1"), Integer.parseInt(env("PGPORT", "5432")),
                env("PGUSER", DEFAULT_USER), env("PGPASSWORD", DEFAULT_PASSWORD));
    }

    /** Creates a new, empty database on the given server. */
    public static LocalPostgres createDatabase(String host, int port, String user, String password) {
        String database = "gpu_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(jdbcUrl(host, port, "postgres"), user, password);
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + host + ":" + port + " is not usable as " + user + " ("
                    + e.getMessage() + "). Start it (pg_ctlcluster --skip-systemctl-redirect 15 main start) and create "
                    + "the test role (.ci/run does both), or point PGHOST/PGPORT/PGUSER/PGPASSWORD at a server where "
                    + "that role may create databases.", e);
        }
        return new LocalPostgres(host, port, user, password, database);
    }

    /** True when a PostgreSQL server accepts TCP connections at PGHOST:PGPORT. */
    public static boolean reachable() {
        try (var socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(env("PGHOST", "127.0.0.1"),
                    Integer.parseInt(env("PGPORT", "5432"))), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    public String jdbcUrl() {
        return jdbcUrl(host, port, database);
    }

    /** The URL form the Quarkus reactive PostgreSQL client takes. */
    public String reactiveUrl() {
        return "postgresql://" + host + ":" + port + "/" + database;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String database() {
        return database;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), user, password);
    }

    /** Drops the database, closing whatever connections are still open to it. */
    @Override
    public void close() {
        try (Connection c = DriverManager.getConnection(jdbcUrl(host, port, "postgres"), user, password);
             Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            System.err.println("could not drop test database " + database + ": " + e.getMessage());
        }
    }

    private static String jdbcUrl(String host, int port, String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
