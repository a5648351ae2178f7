package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemMappers;
import io.vertx.pgclient.PgException;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The inventory database's outages are told apart from bugs by type and SQLSTATE, as grant-service's are. */
class InventoryFailuresTest {

    @Test
    void aServerShuttingDownReportedThroughJdbcIs503LikeThroughTheReactiveClient() {
        // Flyway and Hibernate report the server's state as SQLException; the reactive client as PgException
        ApiProblem viaJdbc = ProblemMappers.problemOf(new SQLException("the database system is shutting down", "57P03"), "r1",
                List.of(new InventoryFailures()));
        ApiProblem viaReactive = ProblemMappers.problemOf(new PgException("the database system is shutting down", "FATAL", "57P03", null), "r2",
                List.of(new InventoryFailures()));

        assertThat(viaJdbc.status()).isEqualTo(503);
        assertThat(viaJdbc.error()).isEqualTo("database-unavailable");
        assertThat(viaReactive.status()).isEqualTo(503);
    }

    @Test
    void aConstraintViolationWhoseTextSaysPoolClosedIs500NotA503() {
        PgException duplicate = new PgException("duplicate key value violates unique constraint (machine)=(Pool closed)", "ERROR", "23505", null);

        assertThat(ProblemMappers.problemOf(duplicate, "r3", List.of(new InventoryFailures())).status()).isEqualTo(500);
    }
}
