package io.rediacc.gpu.grants.rest;

import io.smallrye.mutiny.CompositeException;
import jakarta.ws.rs.core.Response;
import org.hibernate.HibernateException;
import org.junit.jupiter.api.Test;

import java.net.SocketException;

import static org.assertj.core.api.Assertions.assertThat;

/** A database that goes away in the middle of a change is a 503 to retry, never a 500. */
class DatabaseFailureMappingTest {

    @Test
    void aConnectionResetByARestartingDatabaseIs503DatabaseUnavailable() {
        Response response = ErrorMappers.toResponse(new SocketException("Connection reset"));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(((ApiError) response.getEntity()).getError()).isEqualTo("database-unavailable");
    }

    @Test
    void aResetReportedTogetherWithAFailedRollbackIs503Too() {
        // what Hibernate Reactive reports when the server is stopped during a transaction (seen in FaultsIT)
        SocketException reset = new SocketException("Connection reset");
        Response response = ErrorMappers.toResponse(new CompositeException(new HibernateException(reset), reset));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(((ApiError) response.getEntity()).getError()).isEqualTo("database-unavailable");
    }
}
