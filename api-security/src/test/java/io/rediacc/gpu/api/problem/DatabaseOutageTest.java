package io.rediacc.gpu.api.problem;

import com.fasterxml.jackson.core.JsonParseException;
import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A database outage is recognised by type and SQLSTATE, for both services the same way; never by what a message says. */
class DatabaseOutageTest {

    private static final List<FailureClassifier> OUTAGES_ONLY = List.of(e -> DatabaseOutage.is(e)
            ? java.util.Optional.of(DatabaseOutage.problem("the database", e)) : java.util.Optional.empty());

    @Test
    void aServerShuttingDownIsAnOutageWhicheverClientReportsIt() {
        // 57P01 admin_shutdown: the reactive client reports it as PgException, JDBC and Hibernate Reactive as SQLException
        assertThat(DatabaseOutage.is(new PgException("terminating connection due to administrator command", "FATAL", "57P01", null))).isTrue();
        assertThat(DatabaseOutage.is(new SQLException("terminating connection due to administrator command", "57P01"))).isTrue();
        assertThat(DatabaseOutage.is(new SQLException("sorry, too many clients already", "53300"))).isTrue();
        assertThat(DatabaseOutage.is(new PgException("connection failure", "FATAL", "08006", null))).isTrue();
    }

    @Test
    void aConstraintViolationIsABugEvenWhenItsTextSaysConnectionRefused() {
        // the text is the data's, not the database's state: a row holding "Connection refused" must not make a bug a 503
        PgException duplicate = new PgException("duplicate key value violates unique constraint (reason)=(Connection refused, Pool closed, Timeout)",
                "ERROR", "23505", null);

        assertThat(DatabaseOutage.is(duplicate)).isFalse();
        assertThat(ProblemMappers.problemOf(duplicate, "r1", OUTAGES_ONLY).status()).isEqualTo(500);
    }

    @Test
    void anyFailureWhoseMessageMerelyMentionsAnOutageIsNotOne() {
        assertThat(DatabaseOutage.is(new IllegalStateException("Pool closed"))).isFalse();
        assertThat(DatabaseOutage.is(new RuntimeException("Connection refused by the policy"))).isFalse();
        assertThat(ProblemMappers.problemOf(new IllegalStateException("Connection refused"), "r2", OUTAGES_ONLY).status()).isEqualTo(500);
    }

    @Test
    void aRefusedOrResetOrClosedConnectionIsAnOutage() {
        assertThat(DatabaseOutage.is(new ConnectException("Connection refused"))).isTrue();
        assertThat(DatabaseOutage.is(new SocketException("Connection reset"))).isTrue();
        assertThat(DatabaseOutage.is(ClosedConnectionException.INSTANCE)).isTrue();
        // EPIPE on a write to a server that has just gone: the JDK's bare IOException
        assertThat(DatabaseOutage.is(new IOException("Broken pipe"))).isTrue();
        // the pool's own waits (no connection in time, a pool closed at shutdown) have no other type
        assertThat(DatabaseOutage.is(new NoStackTraceThrowable("Timeout"))).isTrue();
    }

    @Test
    void aMalformedBodyIsNotAnOutageThoughItIsAnIOException() {
        assertThat(DatabaseOutage.is(new JsonParseException(null, "Unexpected character"))).isFalse();
    }

    @Test
    void anOutageWrappedInAnotherFailureIs503WithItsSqlState() {
        ApiProblem problem = ProblemMappers.problemOf(new RuntimeException("commit failed", new SQLException("the database system is shutting down", "57P03")),
                "r3", OUTAGES_ONLY);

        assertThat(problem.status()).isEqualTo(503);
        assertThat(problem.error()).isEqualTo("database-unavailable");
        assertThat(problem.detail()).contains("SQLSTATE 57P03");
    }

    @Test
    void anOutageAnswerNamesTheServersWordsNotAJavaType() {
        ApiProblem problem = DatabaseOutage.problem("the database", new java.io.IOException("Connection reset"));

        assertThat(problem.detail()).contains("Connection reset").doesNotContain("Exception");
    }
}
