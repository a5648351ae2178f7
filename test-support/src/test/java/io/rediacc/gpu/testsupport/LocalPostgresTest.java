package io.rediacc.gpu.testsupport;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

class LocalPostgresTest {

    @Test
    void aFreshDatabaseIsCreatedUsedWithAnAdvisoryLockAndDropped() throws Exception {
        String name;
        try (LocalPostgres pg = LocalPostgres.createDatabase()) {
            name = pg.database();
            try (Connection c = pg.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id int primary key)");
                c.setAutoCommit(false);
                s.execute("SELECT pg_advisory_xact_lock(hashtext('m1'))");
                s.execute("INSERT INTO t VALUES (1)");
                try (ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")) {
                    rs.next();
                    assertThat(rs.getInt(1)).as("advisory lock held inside the transaction").isEqualTo(1);
                }
                c.commit();
                try (ResultSet rs = s.executeQuery(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")) {
                    rs.next();
                    assertThat(rs.getInt(1)).as("released at commit").isZero();
                }
            }
            // a second session cannot take the lock while the first holds it
            try (Connection a = pg.connect(); Connection b = pg.connect();
                 Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                sa.execute("SELECT pg_advisory_xact_lock(hashtext('m1'))");
                try (ResultSet rs = sb.executeQuery("SELECT pg_try_advisory_xact_lock(hashtext('m1'))")) {
                    rs.next();
                    assertThat(rs.getBoolean(1)).isFalse();
                }
                a.commit();
                try (ResultSet rs = sb.executeQuery("SELECT pg_try_advisory_xact_lock(hashtext('m1'))")) {
                    rs.next();
                    assertThat(rs.getBoolean(1)).isTrue();
                }
                b.commit();
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + env("PGHOST", "127.0.0.1") + ":"
                + env("PGPORT", "5432") + "/postgres", env("PGUSER", LocalPostgres.DEFAULT_USER),
                env("PGPASSWORD", LocalPostgres.DEFAULT_PASSWORD));
             ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM pg_database WHERE datname = '" + name + "'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("database dropped").isZero();
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
