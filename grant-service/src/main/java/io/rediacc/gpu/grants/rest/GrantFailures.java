package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.FailureClassifier;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.grants.repository.OutboxRecordTooLarge;
import io.rediacc.gpu.grants.service.Problems;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.enterprise.context.ApplicationScoped;

import java.net.ConnectException;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * grant-service's own failures, for api-security's one error model: a name the contracts' parsers
 * refused is a 400 that says how to write it; a change whose record would be over the topic's limit
 * is a 409; a database that cannot be reached (or a machine lock that stays busy) is a 503 to retry.
 * Anything else is not known here and becomes a 500.
 */
@ApplicationScoped
public class GrantFailures implements FailureClassifier {

    @Override
    public Optional<ApiProblem> classify(Throwable e) {
        return Optional.ofNullable(known(e));
    }

    private static ApiProblem known(Throwable e) {
        if (e instanceof InvalidCdiNameException cdi) {
            return new ApiProblem(ProblemType.INVALID_DEVICE_NAME, cdi.getMessage(),
                    "name one CDI device as vendor/class=device, e.g. nvidia.com/gpu=0 or rediacc.io/dri=renderD128",
                    Map.of("part", cdi.part().name().toLowerCase()));
        }
        if (e instanceof InvalidIdentifierException id) {
            return new ApiProblem(ProblemType.INVALID_IDENTIFIER, id.getMessage(),
                    "repos are named name or name@machine, e.g. train-a@gpu-host-1");
        }
        if (e instanceof OutboxRecordTooLarge big) {
            return Problems.recordTooLarge(big.machine(), big.topic(), big.bytes(), big.limit());
        }
        if (e instanceof jakarta.persistence.LockTimeoutException
                || e instanceof org.hibernate.exception.LockTimeoutException) {
            return machineBusy();
        }
        if (e instanceof org.hibernate.exception.JDBCConnectionException) {
            return unavailable("the database cannot be reached: " + e.getMessage());
        }
        // Hibernate Reactive reports the server's errors as SQLException, the bare client as PgException
        String sqlState = e instanceof PgException pg ? pg.getSqlState()
                : e instanceof SQLException sql ? sql.getSQLState() : null;
        if (sqlState != null) {
            ApiProblem byState = database(sqlState, e.getMessage());
            if (byState != null) {
                return byState;
            }
        }
        // SocketException: a server that went away mid-transaction resets the connection (a restart)
        if (e instanceof ConnectException || e instanceof java.net.SocketException || e instanceof ClosedConnectionException
                || e instanceof io.vertx.core.impl.NoStackTraceThrowable && String.valueOf(e.getMessage()).contains("Timeout")) {
            return unavailable("the database cannot be reached: " + e.getMessage());
        }
        // a write to a server that has just gone (a restart) fails on the socket before the pool sees it closed
        if (e instanceof java.io.IOException && (String.valueOf(e.getMessage()).contains("Broken pipe")
                || String.valueOf(e.getMessage()).contains("Connection reset"))) {
            return unavailable("the database connection broke: " + e.getMessage());
        }
        if (String.valueOf(e.getMessage()).contains("Connection refused")
                || String.valueOf(e.getMessage()).contains("Pool closed")) {
            return unavailable("the database cannot be reached: " + e.getMessage());
        }
        return null;
    }

    private static ApiProblem database(String state, String message) {
        if ("55P03".equals(state)) { // lock_not_available: lock_timeout passed while another change held the machine
            return machineBusy();
        }
        if (state.startsWith("08") || state.startsWith("53") || state.startsWith("57")) {
            return unavailable("the database refused the work (SQLSTATE " + state + "): " + message);
        }
        return null;
    }

    private static ApiProblem machineBusy() {
        return new ApiProblem(ProblemType.MACHINE_BUSY,
                "another change of this machine held its lock longer than the lock timeout",
                "retry in a moment; nothing was changed by this request");
    }

    static ApiProblem unavailable(String detail) {
        return new ApiProblem(ProblemType.DATABASE_UNAVAILABLE, detail,
                "retry when the database is back; nothing was changed by this request");
    }
}
