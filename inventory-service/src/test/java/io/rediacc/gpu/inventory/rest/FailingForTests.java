package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.security.Roles;
import io.vertx.pgclient.PgException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.logging.Logger;

/** Test-only endpoints that fail the ways a bug does, to see how the error model answers them. */
@Path("/api/v1/test-only/failures")
@RolesAllowed(Roles.VIEWER)
public class FailingForTests {

    private static final Logger LOG = Logger.getLogger(FailingForTests.class);

    @GET
    @Path("bug")
    @Operation(hidden = true)
    public String bug() {
        LOG.info("about to fail like a bug");
        throw new IllegalStateException("a bug nobody foresaw");
    }

    @GET
    @Path("bad-sql")
    @Operation(hidden = true)
    public String badSql() {
        // a statement the database refuses as malformed: a bug of ours, not an outage
        throw new PgException("syntax error at or near \"SELEC\"", "ERROR", "42601", null);
    }

    @GET
    @Path("database-down")
    @Operation(hidden = true)
    public String databaseDown() {
        throw new RuntimeException(new java.net.ConnectException("Connection refused"));
    }
}
