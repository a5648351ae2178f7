package io.rediacc.gpu.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/**
 * Quarkus test resource: a fresh database on the local PostgreSQL server for the application
 * under test (reactive and JDBC URLs and credentials), dropped when the tests end. Only when no
 * local server is reachable and a Docker engine is present does it start a Testcontainers
 * PostgreSQL instead; otherwise it fails saying what to start.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    private LocalPostgres postgres;
    private AutoCloseable container;

    @Override
    public Map<String, String> start() {
        if (!LocalPostgres.reachable() && DockerEngine.available()) {
            var pg = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:15-alpine");
            pg.start();
            container = pg;
            postgres = LocalPostgres.createDatabase(pg.getHost(), pg.getFirstMappedPort(), pg.getUsername(), pg.getPassword());
        } else {
            postgres = LocalPostgres.createDatabase();
        }
        CURRENT = postgres;
        return Map.of(
                "quarkus.datasource.devservices.enabled", "false",
                "quarkus.datasource.reactive.url", postgres.reactiveUrl(),
                "quarkus.datasource.jdbc.url", postgres.jdbcUrl(),
                "quarkus.datasource.username", postgres.user(),
                "quarkus.datasource.password", postgres.password());
    }

    @Override
    public void stop() {
        if (postgres != null) {
            postgres.close();
        }
        if (container != null) {
            try {
                container.close();
            } catch (Exception e) {
                System.err.println("could not stop the PostgreSQL container: " + e.getMessage());
            }
        }
    }

    private static volatile LocalPostgres CURRENT;

    /** The database of the running test application, for assertions made with JDBC. */
    public static LocalPostgres current() {
        return CURRENT;
    }
}
