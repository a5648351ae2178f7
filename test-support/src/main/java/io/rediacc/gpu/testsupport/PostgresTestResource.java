package io.rediacc.gpu.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/**
 * Quarkus test resource: a fresh database on the local PostgreSQL server for the application
 * under test (reactive and JDBC URLs and credentials), dropped when the tests end.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    private LocalPostgres postgres;

    @Override
    public Map<String, String> start() {
        postgres = LocalPostgres.createDatabase();
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
    }

    private static volatile LocalPostgres CURRENT;

    /** The database of the running test application, for assertions made with JDBC. */
    public static LocalPostgres current() {
        return CURRENT;
    }
}
