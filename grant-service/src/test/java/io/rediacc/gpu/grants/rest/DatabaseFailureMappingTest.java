package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemMappers;
import io.rediacc.gpu.grants.repository.OutboxRecordTooLarge;
import io.smallrye.mutiny.CompositeException;
import io.vertx.pgclient.PgException;
import org.hibernate.HibernateException;
import org.junit.jupiter.api.Test;

import java.net.SocketException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A database that goes away in the middle of a change is a 503 to retry, never a 500. */
class DatabaseFailureMappingTest {

    @Test
    void aConnectionResetByARestartingDatabaseIs503DatabaseUnavailable() {
        ApiProblem response = ProblemMappers.problemOf(new SocketException("Connection reset"), "r1", List.of(new GrantFailures()));

        assertThat(response.status()).isEqualTo(503);
        assertThat(response.error()).isEqualTo("database-unavailable");
    }

    @Test
    void aResetReportedTogetherWithAFailedRollbackIs503Too() {
        // what Hibernate Reactive reports when the server is stopped during a transaction (seen in FaultsIT)
        SocketException reset = new SocketException("Connection reset");
        ApiProblem response = ProblemMappers.problemOf(new CompositeException(new HibernateException(reset), reset), "r2", List.of(new GrantFailures()));

        assertThat(response.status()).isEqualTo(503);
        assertThat(response.error()).isEqualTo("database-unavailable");
    }

    @Test
    void aRecordOverTheTopicLimitIs409RecordTooLargeNamingTheLimit() {
        // the outbox refuses it where it is written (GrantWrites); the answer is worded in Problems
        ApiProblem response = ProblemMappers.problemOf(new OutboxRecordTooLarge("gpu-1", "gpu.grants.v1", 2_000_000, 1_000_000),
                "r3", List.of(new GrantFailures()));

        assertThat(response.status()).isEqualTo(409);
        assertThat(response.error()).isEqualTo("record-too-large");
        assertThat(response.detail()).contains("2000000-byte record", "1000000-byte limit");
    }

    @Test
    void aConstraintViolationWhoseTextMentionsARefusedConnectionIs500NotA503() {
        // the decision is the SQLSTATE's (23505: a bug to fix), not the words the row's data put in the message
        PgException duplicate = new PgException("duplicate key value violates unique constraint (reason)=(Connection refused)",
                "ERROR", "23505", null);

        ApiProblem response = ProblemMappers.problemOf(duplicate, "r4", List.of(new GrantFailures()));

        assertThat(response.status()).isEqualTo(500);
    }

    @Test
    void aLockTimeoutIs503MachineBusyNotDatabaseUnavailable() {
        ApiProblem response = ProblemMappers.problemOf(new PgException("canceling statement due to lock timeout", "ERROR", "55P03", null),
                "r5", List.of(new GrantFailures()));

        assertThat(response.status()).isEqualTo(503);
        assertThat(response.error()).isEqualTo("machine-busy");
    }

    @Test
    void aFailureNobodyForesawIs500WithTheRequestIdNot503() {
        ApiProblem response = ProblemMappers.problemOf(new IllegalStateException("a bug"), "req-42", List.of(new GrantFailures()));

        assertThat(response.status()).isEqualTo(500);
        assertThat(response.error()).isEqualTo("internal-error");
        assertThat(response.detail()).contains("req-42");
    }
}
