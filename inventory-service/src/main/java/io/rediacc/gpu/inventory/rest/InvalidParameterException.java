package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;

/** A query or path parameter the caller got wrong; answered with 400 invalid-parameter and how to fix it. */
public class InvalidParameterException extends ApiProblem {

    public InvalidParameterException(String detail, String hint) {
        super(ProblemType.INVALID_PARAMETER, detail, hint);
    }
}
