package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.DatabaseOutage;
import io.rediacc.gpu.api.problem.FailureClassifier;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.grants.repository.OutboxRecordTooLarge;
import io.rediacc.gpu.grants.service.Problems;
import jakarta.enterprise.context.ApplicationScoped;

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
                || e instanceof org.hibernate.exception.LockTimeoutException
                || DatabaseOutage.sqlState(e).filter("55P03"::equals).isPresent()) {
            // lock_not_available: lock_timeout passed while another change held the machine
            return machineBusy();
        }
        // Hibernate's own connection failure type; its SQLException cause is judged by DatabaseOutage too
        return e instanceof org.hibernate.exception.JDBCConnectionException || DatabaseOutage.is(e)
                ? DatabaseOutage.problem("the database", e) : null;
    }

    private static ApiProblem machineBusy() {
        return new ApiProblem(ProblemType.MACHINE_BUSY,
                "another change of this machine held its lock longer than the lock timeout",
                "retry in a moment; nothing was changed by this request");
    }
}
