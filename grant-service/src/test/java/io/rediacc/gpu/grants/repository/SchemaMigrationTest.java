package io.rediacc.gpu.grants.repository;

import io.rediacc.gpu.api.schema.MigrationTurnsCustomizer;
import io.rediacc.gpu.testsupport.LocalPostgres;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schema's migrations with the service's own Flyway settings (read from application.properties):
 * replicas that migrate one database at once take turns (MigrationTurns) and apply each migration once,
 * and a database made by the former SchemaInitializer is baselined and upgraded in place.
 */
class SchemaMigrationTest {

    /** The first schema SchemaInitializer ever created (commit 499a7ec): no history, no expiry, no parked outbox. */
    private static final String FIRST_INITIALIZER_SCHEMA = "/db/schema-initializer-first.sql";

    @Test
    void replicasMigratingOneFreshDatabaseAtOnceApplyTheSchemaOnce() throws Exception {
        // Without MigrationTurns the second replica found the first one's empty history table and failed
        // to start in about 1 of 3 tries (CI saw it); 6 rounds of 3 replicas make that near certain.
        for (int round = 0; round < 6; round++) {
            try (LocalPostgres db = LocalPostgres.createDatabase()) {
                List<MigrateResult> results = migrateConcurrently(db, 3);

                assertThat(results).extracting(r -> r.success).containsOnly(true);
                assertThat(results.stream().mapToInt(r -> r.migrationsExecuted).sum())
                        .as("one replica applies V1, V2, V3.33, V3.40, V3.41, V3.42, V4, V5 and V6, the others find them applied").isEqualTo(9);
                assertThat(history(db)).containsExactly("1 success", "2 success", "3.33 success", "3.40 success",
                        "3.41 success", "3.42 success", "4 success", "5 success", "6 success");
                assertThat(tables(db)).contains("grants", "grant_history", "outbox_parked", "machine_keys", "machine_key_history");
            }
        }
    }

    @Test
    void aDatabaseMadeBySchemaInitializerIsBaselinedAndKeepsItsGrants() throws Exception {
        try (LocalPostgres db = LocalPostgres.createDatabase()) {
            execute(db, resource(FIRST_INITIALIZER_SCHEMA));
            execute(db, """
                    insert into grants (machine, repo_guid, repo_name, device, exclusive, granted_by, granted_at)
                    values ('m1', '3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43', 'web', 'nvidia.com/gpu=0', true, 'alice', now());
                    insert into machine_versions (machine, version) values ('m1', 7);
                    """);
            assertThat(tables(db)).doesNotContain("grant_history", "outbox_parked");

            MigrateResult result = flyway(db).migrate();

            assertThat(result.success).isTrue();
            assertThat(history(db)).as("baselined at 0, then V1 over the old tables, then V2, V3.33, V3.40, V3.41, V3.42, V4, V5 and V6").containsExactly("0 success", "1 success", "2 success", "3.33 success", "3.40 success", "3.41 success", "3.42 success", "4 success", "5 success", "6 success");
            assertThat(tables(db)).contains("grant_history", "outbox_parked", "machine_keys");
            assertThat(query(db, "select repo_name || ' ' || device || ' ' || granted_by from grants"))
                    .containsExactly("web nvidia.com/gpu=0 alice");
            assertThat(query(db, "select version::text from machine_versions")).containsExactly("7");
            assertThat(query(db, "select column_name::text from information_schema.columns where table_name = 'grants'"))
                    .contains("expires_at");
            assertThat(query(db, "select is_nullable::text from information_schema.columns "
                    + "where table_name = 'outbox' and column_name = 'payload'")).containsExactly("YES");
        }
    }

    @Test
    void twoReplicasUpgradingOneInitializerDatabaseAtOnceBaselineItOnce() throws Exception {
        try (LocalPostgres db = LocalPostgres.createDatabase()) {
            execute(db, resource(FIRST_INITIALIZER_SCHEMA));

            List<MigrateResult> results = migrateConcurrently(db, 2);

            assertThat(results).extracting(r -> r.success).containsOnly(true);
            assertThat(history(db)).containsExactly("0 success", "1 success", "2 success", "3.33 success", "3.40 success", "3.41 success", "3.42 success", "4 success", "5 success", "6 success");
        }
    }

    @Test
    void theOutboxHasTheColumnsDebeziumsOutboxEventRouterReads() throws Exception {
        try (LocalPostgres db = LocalPostgres.createDatabase()) {
            flyway(db).migrate();
            for (String table : List.of("outbox", "outbox_parked")) {
                assertThat(query(db, "select column_name::text from information_schema.columns where table_name = '"
                        + table + "' and is_nullable = 'NO'"))
                        .as(table).contains("id", "aggregatetype", "aggregateid", "type");
                assertThat(query(db, "select column_name::text from information_schema.columns where table_name = '"
                        + table + "'")).as(table).contains("payload").doesNotContain("topic", "record_key");
            }
        }
    }

    @Test
    void rowsWaitingInTheOutboxWhenV5IsAppliedKeepTheirTopicKeyAndTakeTheirTypeFromTheirHeaders() throws Exception {
        try (LocalPostgres db = LocalPostgres.createDatabase()) {
            Flyway untilV4 = Flyway.configure().configuration(flyway(db).getConfiguration()).target("4").load();
            untilV4.migrate();
            execute(db, """
                    insert into outbox (topic, record_key, payload, headers, created_at) values
                      ('gpu.grants.v1', 'm1', '{"version":3}', '{"ce_type":"io.rediacc.gpu.grants.v1"}', now()),
                      ('gpu.inventory.v1', 'm2', null, 'not json', now());
                    insert into outbox_parked (id, topic, record_key, payload, headers, created_at, parked_at, reason)
                      values (99, 'gpu.grant-events.v1', 'm3', '{}', '{"ce_type":"io.rediacc.gpu.grant-event.v1"}', now(),
                              now(), 'too large');
                    """);

            MigrateResult result = flyway(db).migrate();

            assertThat(result.success).isTrue();
            assertThat(query(db, "select aggregatetype || ' ' || aggregateid || ' [' || type || '] ' || coalesce(payload, 'tombstone')"
                    + " from outbox order by id")).containsExactly(
                    "gpu.grants.v1 m1 [io.rediacc.gpu.grants.v1] {\"version\":3}",
                    "gpu.inventory.v1 m2 [] tombstone");
            assertThat(query(db, "select id || ' ' || aggregatetype || ' ' || aggregateid || ' [' || type || ']' from outbox_parked"))
                    .containsExactly("99 gpu.grant-events.v1 m3 [io.rediacc.gpu.grant-event.v1]");
        }
    }

    @Test
    void aSecondStartMigratesNothing() throws Exception {
        try (LocalPostgres db = LocalPostgres.createDatabase()) {
            flyway(db).migrate();
            assertThat(flyway(db).migrate().migrationsExecuted).isZero();
            assertThat(flyway(db).validateWithResult().validationSuccessful).as("V1 unchanged since applied").isTrue();
        }
    }

    private static List<MigrateResult> migrateConcurrently(LocalPostgres db, int replicas) {
        CyclicBarrier start = new CyclicBarrier(replicas);
        List<CompletableFuture<MigrateResult>> running = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            Flyway flyway = flyway(db);
            running.add(CompletableFuture.supplyAsync(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return flyway.migrate();
            }));
        }
        return running.stream().map(CompletableFuture::join).toList();
    }

    /** Flyway as the service configures it: the quarkus.flyway.* settings of application.properties. */
    static Flyway flyway(LocalPostgres db) {
        Properties app = new Properties();
        try (InputStream in = SchemaMigrationTest.class.getResourceAsStream("/application.properties")) {
            app.load(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        assertThat(app.getProperty("quarkus.flyway.migrate-at-start")).isEqualTo("true");
        FluentConfiguration configuration = Flyway.configure()
                .dataSource(db.jdbcUrl(), db.user(), db.password())
                .locations("classpath:db/migration")
                .baselineOnMigrate(Boolean.parseBoolean(app.getProperty("quarkus.flyway.baseline-on-migrate")))
                .baselineVersion(app.getProperty("quarkus.flyway.baseline-version"));
        new MigrationTurnsCustomizer().customize(configuration);
        return configuration.load();
    }

    static String resource(String name) throws IOException {
        try (InputStream in = SchemaMigrationTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static void execute(LocalPostgres db, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static List<String> history(LocalPostgres db) throws SQLException {
        return query(db, "select version || ' ' || case when success then 'success' else 'failed' end "
                + "from flyway_schema_history order by installed_rank");
    }

    private static List<String> tables(LocalPostgres db) throws SQLException {
        return query(db, "select tablename::text from pg_tables where schemaname = 'public'");
    }

    static List<String> query(LocalPostgres db, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
            return rows;
        }
    }
}
