package io.rediacc.gpu.grants.repository;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.NoAuthOnInitializerDatabase;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.LocalPostgres;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service started on a database that the former SchemaInitializer made (its first schema, with a
 * grant in it): Flyway baselines it at start, V1 adds what it lacked, and the grant is still served.
 * The application has authentication off: it shares its start with AuthenticationOffTest
 * ({@link NoAuthOnInitializerDatabase}).
 */
@QuarkusTest
@TestProfile(NoAuthOnInitializerDatabase.class)
@WithTestResource(KafkaTestResource.class)
@WithTestResource(InitializerDatabaseStartTest.InitializerDatabase.class)
public class InitializerDatabaseStartTest { // public: AuthenticationOffTest names its resource

    private static final String GUID = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43";

    @Test
    void theServiceUpgradesAnInitializerDatabaseAtStartAndServesItsGrants() throws Exception {
        assertThat(SchemaMigrationTest.query(InitializerDatabase.db,
                "select version || ' ' || description from flyway_schema_history order by installed_rank"))
                .containsExactly("0 created by SchemaInitializer (before Flyway)", "1 initial schema", "2 machine keys",
                        "3.33 device cards", "3.40 snapshot republish", "3.41 gate status positions", "3.42 machine removal final",
                        "4 outbox notifies relays", "5 outbox shaped for debezium", "6 outbox notify after commit");

        Response grants = new GrantApi().machineGrants("legacy-m1");
        assertThat(grants.statusCode()).as(grants.asString()).isEqualTo(200);
        assertThat(grants.<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
        assertThat(grants.<List<String>>path("grants.grantedBy")).containsExactly("alice");
    }

    /** A fresh database holding SchemaInitializer's first schema and one granted machine, before the service starts. */
    public static class InitializerDatabase implements QuarkusTestResourceLifecycleManager {

        static LocalPostgres db;

        @Override
        public Map<String, String> start() {
            db = LocalPostgres.createDatabase();
            try {
                SchemaMigrationTest.execute(db, SchemaMigrationTest.resource("/db/schema-initializer-first.sql"));
                SchemaMigrationTest.execute(db, """
                        insert into machines (machine, platform, generated_at, received_at) values ('legacy-m1', 'local', now(), now());
                        insert into machine_repos (machine, name, guid) values ('legacy-m1', 'web', '%1$s');
                        insert into grants (machine, repo_guid, repo_name, device, exclusive, granted_by, granted_at)
                        values ('legacy-m1', '%1$s', 'web', 'nvidia.com/gpu=0', false, 'alice', now());
                        insert into machine_versions (machine, version) values ('legacy-m1', 1);
                        """.formatted(GUID));
            } catch (Exception e) {
                throw new IllegalStateException("could not prepare the initializer's database", e);
            }
            return Map.of(
                    "quarkus.datasource.reactive.url", db.reactiveUrl(),
                    "quarkus.datasource.jdbc.url", db.jdbcUrl(),
                    "quarkus.datasource.username", db.user(),
                    "quarkus.datasource.password", db.password());
        }

        @Override
        public void stop() {
            if (db != null) {
                db.close();
            }
        }
    }
}
